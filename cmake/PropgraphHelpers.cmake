# Shared settings for every propgraph library target, and the module registry.
#
# Every library of the package is declared once, by propgraph_add_module(). What it records
# (global properties, read back with propgraph_modules() and propgraph_module_info()) drives:
#   - install(TARGETS ... EXPORT propgraphTargets) in the top-level CMakeLists.txt;
#   - the package config, cmake/propgraphConfig.cmake.in: its find_dependency() calls and the
#     components find_package(propgraph CONFIG COMPONENTS ...) accepts;
#   - the header self-containment check, tests/headers (each header compiled against the module
#     that owns it);
#   - the test directories: tests/<module>/ is added for every module but the core.
# A module is thus named in its own CMakeLists.txt and in the add_subdirectory() that reaches it.

# propgraph_add_module(<name>
#     [SOURCES <file>...]
#     [PUBLIC_DEPS <target>...]
#     [PRIVATE_DEPS <target>...]
#     [HEADERS <path>...]
#     [PACKAGES "<find_package arguments>"...]
#     [OPTIONAL_PACKAGE "<find_package arguments>" [DEBIAN_PACKAGE <package>]])
#
# Creates the library propgraph_<name> (the core, <name> = propgraph, is the target propgraph),
# its alias propgraph::<name> and EXPORT_NAME <name>, and registers it. Without SOURCES it is an
# INTERFACE (header-only) library and PUBLIC_DEPS become its interface.
#
# HEADERS: its public headers, relative to include/; a path ending in / is a folder (searched
# recursively). Default: propgraph/<name>.hpp and propgraph/<name>/. A header belongs to the
# module with the longest matching path, so the core can claim all of propgraph/.
#
# PACKAGES: each argument is one find_package() call without REQUIRED, e.g. "fmt 9 CONFIG". The
# module finds them (REQUIRED) before linking, and the installed package config finds them again
# with find_dependency() (static libraries hand their link dependencies on to consumers).
#
# OPTIONAL_PACKAGE: one package the module cannot be built without, but the project can: when it
# is not found, a WARNING names it (and DEBIAN_PACKAGE, where to get it) and the module is left
# out of the build, the package and the tests. Otherwise it is treated as one of PACKAGES.
function(propgraph_add_module name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "DEBIAN_PACKAGE"
                        "SOURCES;PUBLIC_DEPS;PRIVATE_DEPS;HEADERS;PACKAGES;OPTIONAL_PACKAGE")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "propgraph_add_module(${name}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  get_property(modules GLOBAL PROPERTY PROPGRAPH_MODULES)
  if(name IN_LIST modules)
    message(FATAL_ERROR "propgraph_add_module(${name}): the module is already registered")
  endif()
  list(LENGTH ARG_OPTIONAL_PACKAGE optional_count)
  if(optional_count GREATER 1)
    message(FATAL_ERROR "propgraph_add_module(${name}): OPTIONAL_PACKAGE takes one quoted "
                        "find_package argument list")
  endif()

  if(NOT DEFINED ARG_HEADERS)
    set(ARG_HEADERS propgraph/${name}.hpp propgraph/${name}/)
  endif()
  # Kept for skipped modules too: their headers are still theirs, not the core's.
  set_property(GLOBAL PROPERTY PROPGRAPH_MODULE_${name}_HEADERS ${ARG_HEADERS})

  if(ARG_OPTIONAL_PACKAGE)
    separate_arguments(find_args UNIX_COMMAND "${ARG_OPTIONAL_PACKAGE}")
    list(GET find_args 0 package)
    find_package(${find_args})
    if(NOT ${package}_FOUND)
      set(hint "")
      if(ARG_DEBIAN_PACKAGE)
        set(hint " (Debian: ${ARG_DEBIAN_PACKAGE})")
      endif()
      message(WARNING "${package} not found${hint}: propgraph::${name} is not built")
      set_property(GLOBAL APPEND PROPERTY PROPGRAPH_SKIPPED_MODULES ${name})
      return()
    endif()
    list(APPEND ARG_PACKAGES "${ARG_OPTIONAL_PACKAGE}")
  endif()
  foreach(spec IN LISTS ARG_PACKAGES)
    separate_arguments(find_args UNIX_COMMAND "${spec}")
    find_package(${find_args} REQUIRED)
  endforeach()

  if(name STREQUAL "propgraph")
    set(target propgraph)
  else()
    set(target propgraph_${name})
  endif()
  if(ARG_SOURCES)
    add_library(${target} ${ARG_SOURCES})
    propgraph_configure_target(${target})
    target_link_libraries(${target} PUBLIC ${ARG_PUBLIC_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  else()
    if(ARG_PRIVATE_DEPS)
      message(FATAL_ERROR "propgraph_add_module(${name}): an INTERFACE module has no PRIVATE_DEPS")
    endif()
    add_library(${target} INTERFACE)
    target_link_libraries(${target} INTERFACE ${ARG_PUBLIC_DEPS})
  endif()
  add_library(propgraph::${name} ALIAS ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})

  set_property(GLOBAL APPEND PROPERTY PROPGRAPH_MODULES ${name})
  set_property(GLOBAL PROPERTY PROPGRAPH_MODULE_${name}_TARGET ${target})
  set_property(GLOBAL PROPERTY PROPGRAPH_MODULE_${name}_PACKAGES ${ARG_PACKAGES})
endfunction()

# propgraph_modules(<out-var> [SKIPPED]): the registered modules, in the order they were added;
# with SKIPPED, the modules left out because their OPTIONAL_PACKAGE was not found.
function(propgraph_modules out_var)
  if(ARGV1 STREQUAL "SKIPPED")
    get_property(modules GLOBAL PROPERTY PROPGRAPH_SKIPPED_MODULES)
  else()
    get_property(modules GLOBAL PROPERTY PROPGRAPH_MODULES)
  endif()
  set(${out_var} ${modules} PARENT_SCOPE)
endfunction()

# propgraph_module_info(<name> <TARGET|HEADERS|PACKAGES> <out-var>): what the module registered.
function(propgraph_module_info name what out_var)
  get_property(value GLOBAL PROPERTY PROPGRAPH_MODULE_${name}_${what})
  set(${out_var} ${value} PARENT_SCOPE)
endfunction()

# propgraph_module_headers(<include-dir> <out-prefix>): sorts the public headers under
# <include-dir>/propgraph by module (skipped modules included); sets <out-prefix>_<module> to
# each module's headers, relative to <include-dir> (e.g. propgraph/model.hpp). A header no
# module claims is an error.
function(propgraph_module_headers include_dir out_prefix)
  file(GLOB_RECURSE headers CONFIGURE_DEPENDS RELATIVE "${include_dir}" "${include_dir}/propgraph/*.hpp")
  list(SORT headers)
  propgraph_modules(built)
  propgraph_modules(skipped SKIPPED)
  set(modules ${built} ${skipped})
  foreach(module IN LISTS modules)
    set(owned_${module} "")
  endforeach()
  foreach(header IN LISTS headers)
    set(owner "")
    set(owner_length -1)
    foreach(module IN LISTS modules)
      propgraph_module_info(${module} HEADERS paths)
      foreach(path IN LISTS paths)
        string(LENGTH "${path}" length)
        if(path MATCHES "/$")
          string(SUBSTRING "${header}" 0 ${length} head)
          set(match "${head}")
        else()
          set(match "${header}")
        endif()
        if(match STREQUAL path AND length GREATER owner_length)
          set(owner ${module})
          set(owner_length ${length})
        endif()
      endforeach()
    endforeach()
    if(owner STREQUAL "")
      message(FATAL_ERROR "${include_dir}/${header} belongs to no module (HEADERS of "
                          "propgraph_add_module)")
    endif()
    list(APPEND owned_${owner} ${header})
  endforeach()
  foreach(module IN LISTS modules)
    set(${out_prefix}_${module} ${owned_${module}} PARENT_SCOPE)
  endforeach()
endfunction()

# propgraph_package_config_vars(): sets, for configure_package_config_file, PROPGRAPH_CONFIG_
# DEPENDENCIES (one find_dependency() line per package of the registered modules, each once) and
# PROPGRAPH_CONFIG_COMPONENTS (the modules but the core).
function(propgraph_package_config_vars)
  propgraph_modules(modules)
  set(specs "")
  set(components "")
  foreach(module IN LISTS modules)
    propgraph_module_info(${module} PACKAGES packages)
    list(APPEND specs ${packages})
    if(NOT module STREQUAL "propgraph")
      list(APPEND components ${module})
    endif()
  endforeach()
  list(REMOVE_DUPLICATES specs)
  set(lines "")
  foreach(spec IN LISTS specs)
    string(APPEND lines "find_dependency(${spec})\n")
  endforeach()
  set(PROPGRAPH_CONFIG_DEPENDENCIES "${lines}" PARENT_SCOPE)
  set(PROPGRAPH_CONFIG_COMPONENTS "${components}" PARENT_SCOPE)
endfunction()

# propgraph_configure_target(<target>): C++20, include paths, warnings, position-independent code.
function(propgraph_configure_target target)
  target_compile_features(${target} PUBLIC cxx_std_20)
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/src)
  propgraph_warnings(${target})
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()

# propgraph_warnings(<target>): the project's warning set.
function(propgraph_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
    # Option structs are meant to be filled partly with designated initializers.
    -Wno-missing-field-initializers)
  if(PROPGRAPH_WARNINGS_AS_ERRORS)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
