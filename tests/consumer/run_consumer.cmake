# cmake -P script run by the consumer.find_package test (see CMakeLists.txt beside it):
#   1. cmake --install <main build> --prefix <WORK_DIR>/prefix
#   2. checks the installed package files point at nothing in the source or build tree
#   3. configures and builds tests/consumer/project against the prefix only
#   4. runs the consumer(s), which check shortest paths on the reference fixture
foreach(var PROPGRAPH_SOURCE_DIR PROPGRAPH_BINARY_DIR CONSUMER_SOURCE_DIR WORK_DIR GENERATOR)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "run_consumer.cmake: -D${var}=... is required")
  endif()
endforeach()

set(prefix "${WORK_DIR}/prefix")
set(build "${WORK_DIR}/build")
file(REMOVE_RECURSE "${WORK_DIR}")

function(run step)
  message(STATUS "consumer: ${step}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "consumer: ${step} failed (${rc}): ${ARGN}")
  endif()
endfunction()

set(config_args "")
if(CONFIG)
  set(config_args --config "${CONFIG}")
endif()

run("install into ${prefix}"
  "${CMAKE_COMMAND}" --install "${PROPGRAPH_BINARY_DIR}" --prefix "${prefix}" ${config_args})

# An installed package must not reach back into the tree it was built from. (The prefix itself
# lives in the build tree, so mentions of the prefix are dropped before looking.)
file(GLOB_RECURSE package_files "${prefix}/*.cmake")
if(NOT package_files)
  message(FATAL_ERROR "consumer: the install put no CMake package files under ${prefix}")
endif()
foreach(file IN LISTS package_files)
  file(READ "${file}" text)
  string(REPLACE "${prefix}" "<prefix>" text "${text}")
  foreach(tree "${PROPGRAPH_SOURCE_DIR}/include" "${PROPGRAPH_SOURCE_DIR}/src"
               "${PROPGRAPH_BINARY_DIR}/")
    string(FIND "${text}" "${tree}" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "consumer: installed ${file} refers to ${tree}")
    endif()
  endforeach()
endforeach()

set(configure_args
  -S "${CONSUMER_SOURCE_DIR}" -B "${build}" -G "${GENERATOR}"
  "-DCMAKE_PREFIX_PATH=${prefix}"
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
  "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}"
  "-DCMAKE_EXE_LINKER_FLAGS=${EXE_LINKER_FLAGS}")
if(MAKE_PROGRAM)
  list(APPEND configure_args "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
endif()
if(CXX_COMPILER)
  list(APPEND configure_args "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}")
endif()
if(CONFIG)
  list(APPEND configure_args "-DCMAKE_BUILD_TYPE=${CONFIG}")
endif()
run("configure ${CONSUMER_SOURCE_DIR}" "${CMAKE_COMMAND}" ${configure_args})

# find_package must have used the installed copy, not some other propgraph on the machine.
file(STRINGS "${build}/CMakeCache.txt" found_dir REGEX "^propgraph_DIR:")
string(REGEX REPLACE "^[^=]*=" "" found_dir "${found_dir}")
string(FIND "${found_dir}" "${prefix}/" at)
if(NOT at EQUAL 0)
  message(FATAL_ERROR "consumer: found propgraph in '${found_dir}', not under ${prefix}")
endif()

run("build" "${CMAKE_COMMAND}" --build "${build}" ${config_args})

# propgraph-consumer and propgraph-consumer-fiber always; propgraph-consumer-json when the package
# has propgraph::json.
set(ran 0)
foreach(name propgraph-consumer propgraph-consumer-fiber propgraph-consumer-json)
  foreach(exe "${build}/${name}" "${build}/${CONFIG}/${name}")
    if(EXISTS "${exe}" AND NOT IS_DIRECTORY "${exe}")
      run("run ${exe}" "${exe}")
      math(EXPR ran "${ran} + 1")
      break()
    endif()
  endforeach()
endforeach()
if(ran EQUAL 0)
  message(FATAL_ERROR "consumer: no consumer executable under ${build}")
endif()
