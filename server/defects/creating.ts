import type { DefectSpec } from './spec.js';

const CREATE_400_RULES = ['CREATE-08', 'CREATE-09', 'CREATE-10', 'CREATE-11', 'CREATE-12', 'CREATE-13'] as const;

/** Defects of the creating area. */
export const CREATING_DEFECTS = [
  { id: 'create-200', area: 'creating', description: 'answers a created pet with 200 instead of 201', rules: ['CREATE-01', 'FUZZ-02'] },
  {
    id: 'create-no-id',
    area: 'creating',
    description: 'leaves id out of the 201 body (the pet is stored with one)',
    rules: ['CREATE-02', 'CREATE-04', 'CREATE-05', 'FUZZ-02'],
  },
  {
    id: 'create-status-not-echoed',
    area: 'creating',
    description: 'leaves status out of the 201 body (it is stored)',
    rules: ['CREATE-03', 'FUZZ-02'],
  },
  {
    id: 'create-categoryid-double',
    area: 'creating',
    description: 'stores categoryId as a double, so values above 2^53 come back changed',
    rules: ['CREATE-03', 'CREATE-05', 'CREATE-14', 'FUZZ-02', 'CONS-01'],
  },
  {
    id: 'create-same-id',
    area: 'creating',
    description: 'gives every created pet the first id',
    // GET of that id serves the last pet stored under it, so every other pet cannot be fetched back.
    rules: ['CREATE-04', 'CREATE-05', 'FETCH-01', 'CONS-08'],
  },
  {
    id: 'create-not-stored',
    area: 'creating',
    description: 'answers 201 but forgets the pet (GET gives 404, lists leave it out)',
    // The list checks count the pets the server said it created: every page comes back short.
    rules: ['CREATE-05', 'LIST-02', 'LIST-03', 'LIST-04', 'LIST-05', 'LIST-10', 'LIST-11', 'LIST-14', 'FETCH-01', 'CONS-06', 'CONS-07'],
  },
  {
    id: 'create-missing-status-unknown',
    area: 'creating',
    description: 'gives a pet created without status the status "unknown"',
    rules: ['CREATE-06', 'FUZZ-02'],
  },
  { id: 'create-name-optional', area: 'creating', description: 'accepts a body without name', rules: ['CREATE-08', 'FUZZ-01'] },
  {
    id: 'create-categoryid-string-coerced',
    area: 'creating',
    description: 'accepts categoryId "7" as 7',
    rules: ['CREATE-09', 'FUZZ-01'],
  },
  { id: 'create-null-accepted', area: 'creating', description: 'accepts null for name, categoryId and status', rules: ['CREATE-09', 'FUZZ-01'] },
  {
    id: 'create-fraction-truncated',
    area: 'creating',
    description: 'accepts a fractional or exponent categoryId and truncates it',
    rules: ['CREATE-10', 'FUZZ-01'],
  },
  {
    id: 'create-status-unchecked',
    area: 'creating',
    description: 'accepts any status string (Available, unknown, …)',
    rules: ['CREATE-11', 'FUZZ-01'],
  },
  { id: 'create-array-body', area: 'creating', description: 'accepts an array body and creates its first element', rules: ['CREATE-12', 'FUZZ-01'] },
  { id: 'create-malformed-500', area: 'creating', description: 'answers malformed JSON or an empty body with 500', rules: ['CREATE-13', 'ERR-04', 'FUZZ-01'] },
  {
    id: 'create-422',
    area: 'creating',
    description: 'answers every invalid body with 422 instead of 400',
    rules: [...CREATE_400_RULES, 'FUZZ-01'],
  },
  {
    id: 'create-int32-categoryid',
    area: 'creating',
    description: 'rejects a categoryId outside int32 with 400',
    rules: ['CREATE-03', 'FUZZ-02'],
  },

  // ── names: string handling of the stack ──
  {
    id: 'create-name-stripped',
    area: 'creating',
    description: 'strips leading and trailing whitespace from the name (Python str.strip(), Pydantic str_strip_whitespace, Rails squish)',
    rules: ['CREATE-03', 'CREATE-05', 'CREATE-14', 'CONS-01'],
    byChance: ['FUZZ-02'],
  },
  {
    id: 'create-name-nfc',
    area: 'creating',
    description: 'normalises the name to Unicode NFC before storing it (unicodedata.normalize, String.prototype.normalize)',
    rules: ['CREATE-03', 'CREATE-05', 'CREATE-14', 'CONS-01'],
    byChance: ['FUZZ-02'],
  },
  {
    id: 'create-name-html-escaped',
    area: 'creating',
    description: 'HTML-escapes the name on the way in (express-validator .escape(): <&>"\'/\\ become entities)',
    rules: ['CREATE-03', 'CREATE-05', 'CREATE-14', 'CONS-01'],
    byChance: ['FUZZ-02'],
  },
  {
    id: 'create-name-varchar-255',
    area: 'creating',
    description: 'cuts the name to 255 characters without a word (a VARCHAR(255) column, MySQL outside strict mode)',
    rules: ['CREATE-03', 'CREATE-05', 'CREATE-14', 'CONS-01'],
    byChance: ['FUZZ-02'],
  },
  {
    id: 'create-name-utf8mb3',
    area: 'creating',
    description: 'stores a 4-byte character of the name as ? (a MySQL utf8mb3 column), while the 201 echoes the request entity (JPA save without refresh)',
    rules: ['CREATE-05', 'CREATE-14', 'CONS-01'],
  },

  // ── categoryId: falsy values and coercion ──
  {
    id: 'create-categoryid-zero-refused',
    area: 'creating',
    description: 'refuses categoryId 0 as missing (a falsy check: if (!body.categoryId))',
    rules: ['CREATE-03'],
    byChance: ['FUZZ-02'],
  },
  {
    id: 'create-categoryid-bool-as-int',
    area: 'creating',
    description: 'accepts categoryId true as 1 (Python bool is an int; Pydantic lax mode)',
    rules: ['CREATE-09'],
    byChance: ['FUZZ-01'],
  },
  {
    id: 'create-ajv-coerce-types',
    area: 'creating',
    description: 'coerces types before validating (fastify/ajv coerceTypes: true): name 42 becomes "42", categoryId "7" 7 and true 1, null becomes "" or 0',
    rules: ['CREATE-09'],
    byChance: ['FUZZ-01'],
  },
  {
    id: 'create-ajv-coerce-array',
    area: 'creating',
    description: 'coerces with fastify/ajv coerceTypes: \'array\': a one-element array such as ["available"] or [1] is unwrapped into the scalar, then scalars are coerced',
    rules: ['CREATE-09'],
    byChance: ['FUZZ-01'],
  },
  {
    id: 'create-jackson-null-primitive',
    area: 'creating',
    description: 'binds categoryId to a primitive long: Jackson leaves it 0 when the member is null or missing (FAIL_ON_NULL_FOR_PRIMITIVES is off by default)',
    rules: ['CREATE-08', 'CREATE-09'],
    byChance: ['FUZZ-01'],
  },
  {
    id: 'create-go-zero-values',
    area: 'creating',
    description: 'decodes into a Go struct without pointer fields: a missing or null name is "", categoryId 0, and nothing tells them from values sent',
    rules: ['CREATE-08', 'CREATE-09'],
    byChance: ['FUZZ-01'],
  },

  // ── status: enum lookups ──
  {
    id: 'create-jackson-enum-ordinal',
    area: 'creating',
    description: 'reads a number into the status enum as its ordinal (Jackson, FAIL_ON_NUMBERS_FOR_ENUMS off by default): status 1 is pending',
    rules: ['CREATE-09'],
    byChance: ['FUZZ-01'],
  },
  {
    id: 'create-status-in-lookup',
    area: 'creating',
    description: 'checks status with `status in STATUS_MAP` on an object literal, which also finds Object.prototype members such as "constructor"',
    rules: ['CREATE-11'],
    // fast-check's random strings favour Object.prototype's names (__proto__, toString, valueOf: some 0.8% of
    // them), so FUZZ-01's random statuses meet this defect in a few runs out of a hundred.
    byChance: ['FUZZ-01'],
  },
  {
    id: 'create-status-regex-unanchored',
    area: 'creating',
    description: 'checks status against the unanchored /available|pending|sold/, so "available " or "sold-out" pass',
    rules: ['CREATE-11'],
    byChance: ['FUZZ-01'],
  },
  {
    id: 'create-status-lowercased',
    area: 'creating',
    description: 'lower-cases status before validating it ("Available" is accepted and stored as available)',
    rules: ['CREATE-11'],
    byChance: ['FUZZ-01'],
  },
  {
    id: 'create-status-empty-as-absent',
    area: 'creating',
    description: 'takes status "" for no status (a falsy check: if (body.status))',
    rules: ['CREATE-11'],
    byChance: ['FUZZ-01'],
  },
  {
    id: 'create-rails-enum-500',
    area: 'creating',
    description: 'assigns status to a Rails ActiveRecord enum, whose ArgumentError for an unmapped value goes unrescued: 500 (a blank value becomes nil)',
    rules: ['CREATE-11', 'ERR-04', 'FUZZ-01'],
  },

  // ── bodies: what Go's decoder and the frameworks' own 400s do ──
  {
    id: 'create-go-case-insensitive-keys',
    area: 'creating',
    description: 'matches members case-insensitively, as Go\'s encoding/json does: {"Name": …, "CategoryId": 1} creates a pet',
    rules: ['CREATE-08'],
  },
  {
    id: 'create-go-trailing-data',
    area: 'creating',
    description: 'reads the body with Go\'s json.NewDecoder(r.Body).Decode, which takes the first JSON value and ignores what follows',
    rules: ['CREATE-13'],
    byChance: ['FUZZ-01'],
  },
  {
    id: 'create-express-html-400',
    area: 'creating',
    description: 'leaves body-parser\'s SyntaxError to Express\'s default error handler: malformed JSON and non-object bodies get an HTML 400 page',
    rules: ['CREATE-12', 'CREATE-13', 'ERR-01', 'ERR-02', 'FUZZ-01'],
  },
  {
    id: 'create-spring-default-error',
    area: 'creating',
    description: 'answers an unreadable body (HttpMessageNotReadableException) with Spring Boot\'s default error body {timestamp, status, error, path}',
    rules: ['CREATE-12', 'CREATE-13', 'ERR-02', 'FUZZ-01'],
  },
  {
    id: 'create-fastify-validation-error',
    area: 'creating',
    description: 'answers every invalid body with fastify\'s own error shape {statusCode, code, error, message}, which has no status',
    rules: [...CREATE_400_RULES, 'ERR-02', 'FUZZ-01'],
  },

  // ── ids and what the 201 says ──
  {
    id: 'create-client-id-honoured',
    area: 'creating',
    description: 'spreads the body over the id it assigned ({ id, ...body }, mass assignment): a client-sent id is taken, duplicates included',
    rules: ['CREATE-04', 'CONS-08'],
  },
  {
    id: 'create-201-no-body',
    area: 'creating',
    description: 'answers 201 with a Location and no body (Spring ResponseEntity.created(uri).build())',
    // No body, so no content type to judge either: ERR-05 judges bodies, and the rules on what a 201 carries fail.
    rules: ['CREATE-02', 'CREATE-03', 'CREATE-04', 'CREATE-05', 'CREATE-06', 'FUZZ-02'],
  },
  {
    id: 'create-id-as-string',
    area: 'creating',
    description: 'writes the id of the 201 body as a JSON string (a workaround for JSON.stringify and BigInt)',
    rules: ['CREATE-02', 'CREATE-04', 'CREATE-05', 'FUZZ-02'],
  },
  {
    id: 'create-status-db-default',
    area: 'creating',
    description: 'lets a column DEFAULT give a pet without status "available" while the 201 echoes the entity without it (JPA save without refresh)',
    rules: ['CREATE-05'],
  },
  {
    id: 'list-categoryid-float64',
    area: 'creating',
    description: 'serialises the listing through float64 (Go map[string]interface{}, a JS Number), so categoryIds above 2^53 change in GET /pets only',
    rules: ['CREATE-14', 'CONS-01'],
  },
  {
    id: 'create-content-type-exact-415',
    area: 'creating',
    description: 'answers 415 unless Content-Type is exactly "application/json" (req.headers[\'content-type\'] !== \'application/json\'), refusing a charset parameter and another letter case',
    rules: ['CREATE-16'],
  },
  {
    id: 'create-content-type-case-sensitive',
    area: 'creating',
    description: 'parses the body only when Content-Type.startsWith(\'application/json\'), so Application/JSON reaches the handler without a body and gets 400',
    rules: ['CREATE-16'],
  },
  {
    id: 'create-name-unique-409',
    area: 'creating',
    description: 'keeps names unique (an ORM model with unique=True on name) and answers a repeated name 409 Conflict',
    rules: ['CREATE-17'],
    // Generated names can repeat too, when the seed draws the same suffix twice.
    byChance: ['FUZZ-02'],
  },
  {
    id: 'create-name-unique-500',
    area: 'creating',
    description: 'keeps names unique with a database constraint no handler catches: a repeated name raises IntegrityError, answered 500',
    rules: ['CREATE-17', 'ERR-04'],
    byChance: ['FUZZ-02'],
  },
  {
    id: 'create-name-nul-500',
    area: 'creating',
    description: 'stores names in a PostgreSQL text column, which refuses U+0000 ("invalid byte sequence for encoding UTF8: 0x00"), and answers the error 500',
    rules: ['CREATE-17', 'ERR-04'],
    // Generated names hold any code point, U+0000 included, when the seed draws it.
    byChance: ['FUZZ-02'],
  },
  {
    id: 'create-name-controls-stripped',
    area: 'creating',
    description: 'strips control characters from names before storing and echoing them (a sanitiser\'s replace(/[\\x00-\\x1F\\x7F-\\x9F]/g, \'\'))',
    rules: ['CREATE-17', 'CONS-01'],
    // Generated names may hold control characters: their echo (FUZZ-02) and their listing as pending (CREATE-14) change too.
    byChance: ['FUZZ-02', 'CREATE-14'],
  },
  {
    id: 'create-name-cut-at-nul',
    area: 'creating',
    description: 'stores names through a C-string API (sqlite3_bind_text with length -1), which ends them at U+0000, while the 201 echoes the request\'s entity',
    // The 201 is right; the read CREATE-17 sends after it shows what was stored, which is CONS-01's to judge.
    rules: ['CONS-01'],
    // A generated pending pet whose name holds U+0000 is listed cut short to CREATE-14 too.
    byChance: ['CREATE-14'],
  },
] as const satisfies readonly DefectSpec[];
