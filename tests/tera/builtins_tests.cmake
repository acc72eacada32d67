# The builtins' unit tests.
set(SINDRI_TERA_BUILTIN_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/builtins_string_test.cpp
)
