// The meta-schemas Sindri embeds, for check_schema and for `$ref`s to them.
// Drafts 4, 6 and 7 (meta/draft-0*.json) are the published meta-schemas,
// copied from the files Debian ships in python3-jsonschema
// (jsonschema/schemas/draft{4,6,7}.json). The 2020-12 one is ours: the
// draft-07 meta-schema with the 2019-09 / 2020-12 keywords Sindri implements
// added (the published one is split into vocabularies joined by $dynamicRef,
// which Sindri resolves only statically).

#include "schema/meta_schemas.hpp"

#include "value/embed.hpp"

__asm__(SINDRI_EMBED(sindri_draft4_meta_schema, SINDRI_DRAFT4_META_SCHEMA_FILE));
__asm__(SINDRI_EMBED(sindri_draft6_meta_schema, SINDRI_DRAFT6_META_SCHEMA_FILE));
__asm__(SINDRI_EMBED(sindri_draft7_meta_schema, SINDRI_DRAFT7_META_SCHEMA_FILE));
__asm__(SINDRI_EMBED(sindri_draft2020_meta_schema, SINDRI_DRAFT2020_META_SCHEMA_FILE));
extern "C" const char sindri_draft4_meta_schema[];
extern "C" const char sindri_draft6_meta_schema[];
extern "C" const char sindri_draft7_meta_schema[];
extern "C" const char sindri_draft2020_meta_schema[];

namespace sindri::schema {

const char* const kDraft4MetaSchema = sindri_draft4_meta_schema;
const char* const kDraft6MetaSchema = sindri_draft6_meta_schema;
const char* const kDraft7MetaSchema = sindri_draft7_meta_schema;
const char* const kDraft2020MetaSchema = sindri_draft2020_meta_schema;

}  // namespace sindri::schema
