# Sanitizer and fuzzing builds (docs/reliability.md; `make sanitize`, `make fuzz`).
#   -DSYNCLINE_SANITIZE=address  ASan + UBSan, -fno-sanitize-recover=all: the first report ends the
#                                process with a non-zero status, so a test that triggers one fails.
#                                With GCC, float-cast-overflow is added (clang's "undefined" has it).
#   -DSYNCLINE_SANITIZE=thread   TSan (the recorder and live tests run under it).
#   -DSYNCLINE_SANITIZE=fuzzer   clang only: every library with -fsanitize=fuzzer-no-link plus ASan
#                                and UBSan; tests/fuzz/ adds the libFuzzer harnesses (fuzz_*).
# Each is meant for its own build folder (build-asan, build-tsan, build-fuzz); the run-time options
# and suppression files are in tests/sanitizers/ and scripts/sanitize.sh / scripts/fuzz.sh set them.
set(SYNCLINE_SANITIZE "" CACHE STRING "empty, address, thread or fuzzer")
set_property(CACHE SYNCLINE_SANITIZE PROPERTY STRINGS "" address thread fuzzer)
set(SYNCLINE_TEST_TIMEOUT_FACTOR 1) # sanitized code runs 2-10x slower; ctest timeouts scale
# A sanitizer build is compiled at -O1 (customary with ASan/TSan: readable stacks, and a cheaper
# build than the -O2 of the release build; CI builds these cold). This file is included after the
# top-level CMakeLists sets RelWithDebInfo's -O2, so it overrides it here, for these builds only.
if(NOT SYNCLINE_SANITIZE STREQUAL "")
  set(CMAKE_CXX_FLAGS_RELWITHDEBINFO "-O1 -g1")
  set(CMAKE_C_FLAGS_RELWITHDEBINFO "-O1 -g1")
endif()
if(SYNCLINE_SANITIZE STREQUAL "address")
  set(_syncline_san -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    list(APPEND _syncline_san -fsanitize=float-cast-overflow)
  endif()
  add_compile_options(${_syncline_san})
  add_link_options(${_syncline_san})
  set(SYNCLINE_TEST_TIMEOUT_FACTOR 4)
elseif(SYNCLINE_SANITIZE STREQUAL "thread")
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
  set(SYNCLINE_TEST_TIMEOUT_FACTOR 6)
elseif(SYNCLINE_SANITIZE STREQUAL "fuzzer")
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "SYNCLINE_SANITIZE=fuzzer needs clang (libFuzzer): -DCMAKE_CXX_COMPILER=clang++")
  endif()
  set(_syncline_san -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_compile_options(-fsanitize=fuzzer-no-link ${_syncline_san})
  add_link_options(${_syncline_san})
elseif(NOT SYNCLINE_SANITIZE STREQUAL "")
  message(FATAL_ERROR "SYNCLINE_SANITIZE must be empty, address, thread or fuzzer (got '${SYNCLINE_SANITIZE}')")
endif()
