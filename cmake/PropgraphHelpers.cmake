# Shared settings for every propgraph library target.
set(PROPGRAPH_EXPORTED_TARGETS "" CACHE INTERNAL "")

# propgraph_configure_target(<target>): C++20, include paths, warnings; registers it for install.
function(propgraph_configure_target target)
  target_compile_features(${target} PUBLIC cxx_std_20)
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/src)
  propgraph_warnings(${target})
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  set(PROPGRAPH_EXPORTED_TARGETS ${PROPGRAPH_EXPORTED_TARGETS} ${target} CACHE INTERNAL "")
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
