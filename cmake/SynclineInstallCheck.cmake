# SynclineInstallCheck.cmake — the first step of `cmake --install` (install(SCRIPT) from
# cmake/SynclineInstall.cmake; also run by CPack into its staging directory). It refuses, before
# a single file is copied, so a refused install leaves the prefix exactly as it was:
#   - a prefix whose syncline belongs to the Debian package: dpkg would be left believing in
#     files that were overwritten, and would delete the new ones on `apt-get remove`;
#   - a prefix that already holds a different syncline version: the old version's files (a
#     header or doc page that the new one no longer has) would stay beside the new ones;
#   - a destination that cannot be created or written (a read-only or foreign directory, a
#     prefix under a regular file): without this, CMake would stop at the first file it cannot
#     copy, after copying the ones before it. Checked last, as it writes probe files.
# Re-installing the same version over a `cmake --install` of it is allowed (it only overwrites).
# The marker of an install is share/syncline/version, written last by SynclineInstall.cmake.
# In: SYNCLINE_INSTALL_VERSION, SYNCLINE_INSTALL_DIRS (relative to the prefix),
#     SYNCLINE_INSTALL_DATADIR, and CMake's CMAKE_INSTALL_PREFIX and $ENV{DESTDIR}.

# `cmake --install --prefix rel` copies relative to the working directory, which is what a
# relative path means in an install script.
get_filename_component(_root "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}" ABSOLUTE)

function(_syncline_refuse) # the arguments are the pieces of one sentence
  string(JOIN "" why ${ARGV})
  message(FATAL_ERROR "syncline ${SYNCLINE_INSTALL_VERSION}: not installing to ${_root}: ${why}\n"
    "Nothing was installed.\n")
endfunction()

# A directory is installable when its nearest existing ancestor is a directory this process can
# create entries in. Writing is tried for real (a probe file, removed at once): permission bits
# say nothing about read-only mounts, ACLs or root.
function(_syncline_check_writable dir)
  set(probe "${dir}")
  while(NOT EXISTS "${probe}" AND NOT IS_SYMLINK "${probe}")
    get_filename_component(parent "${probe}" DIRECTORY)
    if(parent STREQUAL probe)
      break()
    endif()
    set(probe "${parent}")
  endwhile()
  if(NOT IS_DIRECTORY "${probe}")
    _syncline_refuse("${probe} is not a directory, so ${dir} cannot be created.")
  endif()
  string(RANDOM LENGTH 12 tag)
  set(file "${probe}/.syncline-install-probe-${tag}")
  execute_process(COMMAND "${CMAKE_COMMAND}" -E touch "${file}" RESULT_VARIABLE rc
    OUTPUT_QUIET ERROR_QUIET)
  if(NOT rc EQUAL 0 OR NOT EXISTS "${file}")
    _syncline_refuse("${probe} is not writable (permissions or a read-only file system), so "
      "${dir} cannot be written. Install as a user who can write there, or to a prefix you own: "
      "cmake --install BUILD --prefix DIR.")
  endif()
  file(REMOVE "${file}")
endfunction()

set(_marker "${_root}/${SYNCLINE_INSTALL_DATADIR}/version")
if(EXISTS "${_marker}")
  file(STRINGS "${_marker}" _old LIMIT_COUNT 1)
  set(_manifest "${SYNCLINE_INSTALL_DATADIR}/install-manifest.txt")
  find_program(_dpkg_query dpkg-query)
  if(_dpkg_query AND "$ENV{DESTDIR}" STREQUAL "")
    file(REAL_PATH "${_marker}" _real)
    execute_process(COMMAND "${_dpkg_query}" -S "${_real}" RESULT_VARIABLE _rc
      OUTPUT_VARIABLE _owner ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(_rc EQUAL 0)
      string(REGEX REPLACE ":.*" "" _owner "${_owner}")
      _syncline_refuse("syncline ${_old} there belongs to the Debian package '${_owner}'. "
        "Remove it first (apt-get remove ${_owner}) or install to another prefix.")
    endif()
  endif()
  if(NOT _old VERSION_EQUAL SYNCLINE_INSTALL_VERSION)
    if(_old VERSION_LESS SYNCLINE_INSTALL_VERSION)
      set(_age "an older")
    else()
      set(_age "a newer")
    endif()
    _syncline_refuse("it holds ${_age} syncline (${_old}, installed by cmake --install). "
      "Installing ${SYNCLINE_INSTALL_VERSION} over it would leave that version's files mixed "
      "with this one's. Remove it first, or install to another prefix. To remove it:\n"
      "  cd ${_root} && xargs -d '\\n' rm -f < ${_manifest}")
  endif()
endif()

# Last, as it writes (and removes) probe files: a refusal above leaves even directory times alone.
list(REMOVE_DUPLICATES SYNCLINE_INSTALL_DIRS)
foreach(d IN LISTS SYNCLINE_INSTALL_DIRS)
  _syncline_check_writable("${_root}/${d}")
endforeach()
