# syncline_add_qtest(NAME SOURCES src... LIBS lib... [GUI])
# One QtTest executable per test file (tests/<layer>/tst_<class>.cpp), registered with ctest.
# Every test runs with QT_QPA_PLATFORM=offscreen, a private XDG_RUNTIME_DIR and
# SYNCLINE_SOURCE_DIR so it can find the repo (the real traces are in tests/data, inside it).
function(syncline_add_qtest name)
  cmake_parse_arguments(T "" "TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE Qt6::Test ${T_LIBS})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR})
  target_compile_definitions(${name} PRIVATE
    SYNCLINE_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    SYNCLINE_BINARY_DIR="${PROJECT_BINARY_DIR}")
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests)
  add_test(NAME ${name} COMMAND ${name})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  math(EXPR T_TIMEOUT "${T_TIMEOUT} * ${SYNCLINE_TEST_TIMEOUT_FACTOR}") # cmake/SynclineSanitize.cmake
  set_tests_properties(${name} PROPERTIES TIMEOUT ${T_TIMEOUT}
    LABELS "${T_LABELS}"
    ENVIRONMENT "QT_QPA_PLATFORM=offscreen;XDG_RUNTIME_DIR=${PROJECT_BINARY_DIR}/xdg-runtime")
endfunction()
