# Owned by the builtins: every .cpp under src/tera/builtins and the libraries they need.
# Debian packages: libicu-dev, libpcre2-dev, tzdata (run time), and optionally
# librust-deunicode-dev, whose tables make `slugify` transliterate exactly as Tera.
set(SINDRI_TERA_BUILTIN_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/datetime.cpp
  ${CMAKE_CURRENT_LIST_DIR}/filters_array.cpp
  ${CMAKE_CURRENT_LIST_DIR}/filters_common.cpp
  ${CMAKE_CURRENT_LIST_DIR}/filters_number.cpp
  ${CMAKE_CURRENT_LIST_DIR}/filters_object.cpp
  ${CMAKE_CURRENT_LIST_DIR}/filters_string.cpp
  ${CMAKE_CURRENT_LIST_DIR}/functions.cpp
  ${CMAKE_CURRENT_LIST_DIR}/helpers.cpp
  ${CMAKE_CURRENT_LIST_DIR}/regex.cpp
  ${CMAKE_CURRENT_LIST_DIR}/registry.cpp
  ${CMAKE_CURRENT_LIST_DIR}/slug.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tests.cpp
  ${CMAKE_CURRENT_LIST_DIR}/unicode.cpp
  ${CMAKE_CURRENT_LIST_DIR}/value_text.cpp
)

find_package(PkgConfig REQUIRED)
pkg_check_modules(SINDRI_PCRE2 REQUIRED IMPORTED_TARGET libpcre2-8)
find_package(ICU REQUIRED COMPONENTS uc i18n)
set(SINDRI_TERA_BUILTIN_LIBS PkgConfig::SINDRI_PCRE2 ICU::i18n ICU::uc)

# slugify transliterates with deunicode's own tables (Debian's
# librust-deunicode-dev), so that its output is Tera's.
file(GLOB _sindri_deunicode_dirs LIST_DIRECTORIES true /usr/share/cargo/registry/deunicode-1.*)
if(NOT _sindri_deunicode_dirs)
  message(FATAL_ERROR "slugify needs deunicode's tables: apt-get install librust-deunicode-dev")
endif()
list(SORT _sindri_deunicode_dirs COMPARE NATURAL ORDER DESCENDING)
list(GET _sindri_deunicode_dirs 0 _sindri_deunicode)
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/slug.cpp PROPERTIES
  COMPILE_DEFINITIONS "SINDRI_DEUNICODE_POINTERS=\"${_sindri_deunicode}/src/pointers.bin\";SINDRI_DEUNICODE_MAPPING=\"${_sindri_deunicode}/src/mapping.txt\""
  OBJECT_DEPENDS "${_sindri_deunicode}/src/pointers.bin;${_sindri_deunicode}/src/mapping.txt")
