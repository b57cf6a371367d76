# SynclinePackaging.cmake — the Debian package (`make deb`, i.e. `cpack -G DEB` in the build
# dir): syncline_<version>_<arch>.deb with everything cmake/SynclineInstall.cmake installs, under
# /usr. Depends is computed from the binaries by dpkg-shlibdeps (Qt 6, simdjson, libstdc++,
# libc, …), plus what no ELF file names: the one Python the module is built for (its ABI tag is
# in the file name, cpython-3XY). Qt's xcb and offscreen platform plugins come with libqt6gui6.
# The preinst refuses to unpack over a syncline that `cmake --install --prefix /usr` left there
# (cmake/debian/preinst); the install rules refuse the reverse (SynclineInstallCheck.cmake). The
# prerm removes the byte-code caches Python wrote beside the package's modules.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME syncline)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "Seed 706c341e maintainers <maintainers@users.noreply.a-seed-706c341e.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "clock-corrected timeline of every worker of a distributed training job")
# The long description; CPack puts the summary above it and indents it as control files want.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "A recorder that training workers link (C++ library syncline::recorder, Python
module syncline), a clock-skew correction engine, and a Qt 6 viewer and command
line (syncline) that put every worker's log on one global timeline, live or
after the fact. With the recorder's headers, CMake package and pkg-config file,
the simulator syncline-sim, a desktop entry, and the documentation and examples.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(SYNCLINE_DEB_PYTHON "${Python_VERSION_MAJOR}.${Python_VERSION_MINOR}")
math(EXPR SYNCLINE_DEB_PYTHON_NEXT "${Python_VERSION_MINOR} + 1")
set(CPACK_DEBIAN_PACKAGE_DEPENDS
  "python3 (>= ${SYNCLINE_DEB_PYTHON}~), python3 (<< ${Python_VERSION_MAJOR}.${SYNCLINE_DEB_PYTHON_NEXT})")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "g++, cmake, pkg-config") # for C++ users of the recorder
set(CPACK_STRIP_FILES ON)
configure_file(${CMAKE_CURRENT_LIST_DIR}/debian/preinst ${PROJECT_BINARY_DIR}/package/debian/preinst
  @ONLY FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
  WORLD_READ WORLD_EXECUTE)
configure_file(${CMAKE_CURRENT_LIST_DIR}/debian/prerm ${PROJECT_BINARY_DIR}/package/debian/prerm
  @ONLY FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
  WORLD_READ WORLD_EXECUTE)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${PROJECT_BINARY_DIR}/package/debian/preinst
  ${PROJECT_BINARY_DIR}/package/debian/prerm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)
include(CPack)
