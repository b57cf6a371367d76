# checklayering_test.cmake — proves cmake/CheckLayering.cmake refuses what docs/architecture.md
# forbids: on a copy of timeline/ and ui/, the real tree must pass, and each planted violation
# (report/ including load/, model/ including live/, ui/ including a load/ internal, ui/ including
# a JSON parser, load/store/ including a parser internal, load/parse/ including load/store/)
# must fail with the offending file named.
file(REMOVE_RECURSE ${WORK})
file(COPY ${SOURCE}/timeline ${SOURCE}/ui DESTINATION ${WORK})
execute_process(COMMAND ${CMAKE_COMMAND} -DROOT=${WORK} -P ${SOURCE}/cmake/CheckLayering.cmake
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the real tree fails the layering check:\n${err}")
endif()
foreach(case "timeline/report/planted.cpp|timeline/load/parse/log/logparser.h"
             "timeline/model/planted.h|timeline/live/livejob.h"
             "ui/planted.cpp|timeline/load/build/clockcorrector.h"
             "ui/planted.h|simdjson.h"
             "timeline/load/store/planted.cpp|timeline/load/parse/log/linescanner.h"
             "timeline/load/parse/planted.cpp|timeline/load/store/eventstore.h")
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 file)
  list(GET parts 1 inc)
  file(WRITE ${WORK}/${file} "#include \"${inc}\"\n")
  execute_process(COMMAND ${CMAKE_COMMAND} -DROOT=${WORK} -P ${SOURCE}/cmake/CheckLayering.cmake
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  file(REMOVE ${WORK}/${file})
  if(rc EQUAL 0)
    message(FATAL_ERROR "${file} including ${inc} passed the layering check")
  endif()
  string(FIND "${err}" "${file}: #include \"${inc}\"" at)
  if(at LESS 0)
    message(FATAL_ERROR "the check failed without naming ${file}:\n${err}")
  endif()
endforeach()
message(STATUS "layering check: real tree passes, 6 planted violations refused")
