# SynclineInstall.cmake — what `cmake --install BUILD --prefix P` (and the .deb, which CPack makes
# from the same rules) puts under P; the full list is in docs/install.md. Included by the top-level
# CMakeLists.txt before the layers, whose own CMakeLists install their targets:
#   bin/syncline, bin/syncline-sim                                 (app/, sim/)
#   lib/libsyncline_recorder.a, include/syncline/recorder/*.h     (recorder/)
#   ${SYNCLINE_PYTHON_INSTALL_DIR}/syncline.<abi>.so               (python/)
# and, from syncline_install_finish() at the end of the top-level file:
#   lib/cmake/syncline/ (find_package(syncline) → syncline::recorder), lib/pkgconfig/syncline.pc,
#   share/applications/syncline.desktop, share/icons/hicolor/scalable/apps/syncline.svg,
#   share/doc/syncline/ (README, docs/, examples/), share/syncline/{version,install-manifest.txt}.
# Relocatable: every destination is relative to the prefix, the CMake package and the .pc file
# find the prefix from their own location, and no project library is shared, so no RPATH is
# needed (CMake drops the build-tree one on install).
# Refusals, before any file is copied (cmake/SynclineInstallCheck.cmake): a prefix whose syncline
# the .deb owns, one holding another syncline version, a destination that cannot be written.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# Debian's layout: /usr/lib/python3/dist-packages is on Debian's sys.path (the .deb installs
# there); under any other prefix the module is found with PYTHONPATH=P/<this dir>.
set(SYNCLINE_PYTHON_INSTALL_DIR "lib/python3/dist-packages" CACHE STRING
  "where the Python module is installed, relative to the prefix")
set(SYNCLINE_CMAKE_INSTALL_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/syncline")
set(SYNCLINE_DATA_INSTALL_DIR "${CMAKE_INSTALL_DATADIR}/syncline")

# Runs first in the install script: since CMake 3.14 (CMP0082) install rules run in the order
# they are declared, the subdirectories' ones interleaved, so this precedes every file copy.
install(CODE "
  set(SYNCLINE_INSTALL_VERSION \"${PROJECT_VERSION}\")
  set(SYNCLINE_INSTALL_DIRS \"${CMAKE_INSTALL_BINDIR};${CMAKE_INSTALL_INCLUDEDIR};${CMAKE_INSTALL_LIBDIR};${SYNCLINE_PYTHON_INSTALL_DIR};${CMAKE_INSTALL_DATADIR};${CMAKE_INSTALL_DOCDIR}\")
  set(SYNCLINE_INSTALL_DATADIR \"${SYNCLINE_DATA_INSTALL_DIR}\")")
install(SCRIPT ${CMAKE_CURRENT_LIST_DIR}/SynclineInstallCheck.cmake)

# The rest of the install, after every layer has declared its targets.
function(syncline_install_finish)
  # CMake package: lib/cmake/syncline/synclineConfig.cmake + version file + the exported
  # syncline::recorder. 0.x releases are compatible within one minor version.
  install(EXPORT synclineTargets NAMESPACE syncline:: DESTINATION ${SYNCLINE_CMAKE_INSTALL_DIR})
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/synclineConfig.cmake.in
    ${PROJECT_BINARY_DIR}/package/synclineConfig.cmake
    INSTALL_DESTINATION ${SYNCLINE_CMAKE_INSTALL_DIR})
  write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/synclineConfigVersion.cmake
    VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
  install(FILES ${PROJECT_BINARY_DIR}/package/synclineConfig.cmake
    ${PROJECT_BINARY_DIR}/package/synclineConfigVersion.cmake
    DESTINATION ${SYNCLINE_CMAKE_INSTALL_DIR})

  # pkg-config: prefix=${pcfiledir}/<way up>, so the file stays right wherever P is moved.
  file(RELATIVE_PATH SYNCLINE_PC_UP /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
  string(REGEX REPLACE "/$" "" SYNCLINE_PC_UP "${SYNCLINE_PC_UP}")
  configure_file(${PROJECT_SOURCE_DIR}/cmake/syncline.pc.in ${PROJECT_BINARY_DIR}/package/syncline.pc
    @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/package/syncline.pc
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

  # Desktop entry (Exec=syncline open %F: found on PATH, so no prefix is baked in) and its icon.
  install(FILES ${PROJECT_SOURCE_DIR}/resources/syncline.desktop
    DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
  install(FILES ${PROJECT_SOURCE_DIR}/resources/syncline.svg
    DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)

  # Docs, laid out as in the repository so their relative links still work: README.md,
  # docs/*.md with their images, and the examples they point at (the C++ worker, which
  # tests/install builds against the install, and the Python examples).
  install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs
    FILES_MATCHING PATTERN "*.md" PATTERN "*.png" PATTERN "*.svg")
  install(FILES ${PROJECT_SOURCE_DIR}/examples/timer_config.json
    DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/cpp ${PROJECT_SOURCE_DIR}/examples/python
    DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples
    PATTERN "__pycache__" EXCLUDE PATTERN "*.pyc" EXCLUDE)

  # Last: the static library loses its debug info under --strip (as dh_strip does; CMake itself
  # only strips executables and modules), then share/syncline/version and install-manifest.txt
  # record what this install wrote — the marker SynclineInstallCheck.cmake looks for, and the
  # list to remove an install by.
  if(CMAKE_STRIP)
    install(CODE "
      if(CMAKE_INSTALL_DO_STRIP)
        execute_process(COMMAND \"${CMAKE_STRIP}\" --strip-debug
          \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/$<TARGET_FILE_NAME:syncline_recorder>\")
      endif()")
  endif()
  install(CODE "
    get_filename_component(_root \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}\" ABSOLUTE)
    set(_data \"\${_root}/${SYNCLINE_DATA_INSTALL_DIR}\")
    file(MAKE_DIRECTORY \"\${_data}\")
    file(WRITE \"\${_data}/version\" \"${PROJECT_VERSION}\\n\")
    list(APPEND CMAKE_INSTALL_MANIFEST_FILES \"\${_data}/version\" \"\${_data}/install-manifest.txt\")
    set(_listed \"\")
    foreach(_f IN LISTS CMAKE_INSTALL_MANIFEST_FILES)
      string(FIND \"\${_f}\" \"\${_root}/\" _at)
      if(_at EQUAL 0)
        string(LENGTH \"\${_root}/\" _n)
        string(SUBSTRING \"\${_f}\" \${_n} -1 _f)
      endif()
      string(APPEND _listed \"\${_f}\\n\")
    endforeach()
    file(WRITE \"\${_data}/install-manifest.txt\" \"\${_listed}\")
    message(STATUS \"syncline ${PROJECT_VERSION} installed to \${_root}\")")
endfunction()
