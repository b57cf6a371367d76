# CheckLayering.cmake — fails when a file includes a header its layer may not use
# (docs/architecture.md). Run by the build (target syncline_timeline_layering) as
#   cmake -DROOT=<source dir> -P cmake/CheckLayering.cmake
# Rules, by the including file's folder (paths are rooted at the source dir):
#   timeline/model/   timeline/model/ only (plus sync/)
#   timeline/load/    timeline/model/, timeline/load/ (plus sync/, recorder/); inside it, by stage:
#     load/parse/     load/parse/ only (parse never knows build/, store/ or the loader)
#     load/build/     load/parse/, load/build/ (never store/ or the loader)
#     load/store/     load/build/, load/store/ and parse's public headers: those at load/parse/'s
#                     top and the log parser (load/parse/log/logparser.h), never parse's
#                     internals (the rest of load/parse/log/ and load/parse/chrome/) or the loader
#   timeline/live/    timeline/model/, timeline/load/, timeline/live/ (plus sync/, recorder/)
#   timeline/report/  timeline/model/, timeline/report/ (plus sync/, recorder/)
#   ui/               timeline/model/, timeline/report/, timeline/load/jobloader.h and
#                     timeline/live/liveupdate.h; timeline/live/livejob.h and dirwatcher.h
#                     only from the one class that drives a live job (ui/livecontroller.*);
#                     never a JSON parser.
# Inside timeline/ every project include is rooted ("timeline/model/worker.h", not "worker.h"),
# so the check sees what each file really uses.
if(NOT ROOT)
  message(FATAL_ERROR "CheckLayering: pass -DROOT=<source dir>")
endif()

set(violations "")
file(GLOB_RECURSE files RELATIVE ${ROOT} ${ROOT}/timeline/*.h ${ROOT}/timeline/*.cpp
  ${ROOT}/ui/*.h ${ROOT}/ui/*.cpp)
foreach(f IN LISTS files)
  set(sub "")
  if(f MATCHES "^timeline/load/(parse|build|store)/")
    set(stage load)
    set(sub ${CMAKE_MATCH_1})
  elseif(f MATCHES "^timeline/([a-z]+)/")
    set(stage ${CMAKE_MATCH_1})
  elseif(f MATCHES "^ui/")
    set(stage ui)
  else()
    continue()
  endif()
  file(STRINGS ${ROOT}/${f} lines REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<]")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*[\"<]([^\">]+)[\">].*" "\\1" inc "${line}")
    set(bad "")
    if(stage STREQUAL "ui")
      if(inc MATCHES "^(nlohmann|simdjson)")
        set(bad "the UI never parses files")
      elseif(inc MATCHES "^timeline/(load|live)/" AND NOT inc MATCHES
             "^timeline/(load/jobloader|live/liveupdate)\\.h$")
        if(NOT (inc MATCHES "^timeline/live/(livejob|dirwatcher)\\.h$" AND f MATCHES
                "^ui/livecontroller\\."))
          set(bad "the UI uses load/ through jobloader.h and live/ through liveupdate.h")
        endif()
      endif()
    else()
      if(line MATCHES "\"" AND NOT inc MATCHES "^(timeline|sync|recorder)/" AND NOT inc MATCHES "^tests/")
        set(bad "project includes inside timeline/ are rooted (timeline/<stage>/...)")
      elseif(inc MATCHES "^timeline/([a-z]+)/")
        set(target ${CMAKE_MATCH_1})
        if(stage STREQUAL "model" AND NOT target STREQUAL "model")
          set(bad "model/ includes only model/")
        elseif(stage STREQUAL "report" AND NOT target MATCHES "^(model|report)$")
          set(bad "report/ reads model/ only")
        elseif(stage STREQUAL "load" AND NOT target MATCHES "^(model|load)$")
          set(bad "load/ never includes live/ or report/")
        elseif(stage STREQUAL "live" AND target STREQUAL "report")
          set(bad "live/ never includes report/")
        elseif(sub STREQUAL "parse" AND target STREQUAL "load" AND NOT inc MATCHES
               "^timeline/load/parse/")
          set(bad "load/parse/ never knows load/build/, load/store/ or the loader")
        elseif(sub STREQUAL "build" AND target STREQUAL "load" AND NOT inc MATCHES
               "^timeline/load/(parse|build)/")
          set(bad "load/build/ never includes load/store/ or the loader")
        elseif(sub STREQUAL "store" AND target STREQUAL "load" AND NOT inc MATCHES
               "^timeline/load/(build|store)/" AND NOT inc MATCHES
               "^timeline/load/parse/([a-z]+\\.h|log/logparser\\.h)$")
          set(bad "load/store/ uses parse's public headers only, never its internals")
        endif()
      elseif(inc MATCHES "^recorder/" AND stage STREQUAL "model")
        set(bad "model/ holds data only")
      endif()
    endif()
    if(bad)
      string(APPEND violations "  ${f}: #include \"${inc}\" — ${bad}\n")
    endif()
  endforeach()
endforeach()
if(violations)
  message(FATAL_ERROR "layering violations (docs/architecture.md):\n${violations}")
endif()
