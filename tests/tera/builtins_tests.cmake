# The builtins' unit tests. builtins_reference_*_test.cpp are generated from
# builtins_cases/*.tsv by builtins_cases/generate.py with the Tera reference renderer.
set(SINDRI_TERA_BUILTIN_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/builtins_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/builtins_reference_string_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/builtins_reference_array_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/builtins_reference_number_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/builtins_reference_common_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/builtins_reference_tests_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/builtins_reference_functions_test.cpp
)
