#pragma once
// JSON text of the embedded meta-schemas (meta_schemas.cpp).

namespace sindri::schema {

extern const char* const kDraft4MetaSchema;
extern const char* const kDraft6MetaSchema;
extern const char* const kDraft7MetaSchema;
extern const char* const kDraft2020MetaSchema;

}  // namespace sindri::schema
