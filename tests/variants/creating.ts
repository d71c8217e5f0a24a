import { bodyText } from '../../server/creating.js';
import { isLosslessNumber } from 'lossless-json';
import { INTEGER_LITERAL, invalid, isNewPetObject, unknownMembers } from '../../server/new-pet.js';
import { withHeaders } from '../../server/responses.js';
import { onAnswer, type PetBody } from '../../server/seams.js';
import type { VariantSpec } from './spec.js';

// The most characters the name-max-255 variant takes: a VARCHAR(255) column, refused rather than cut.
const NAME_MAX = 255;
// C0 controls (U+0000 included), DEL and the C1 controls.
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/u;

/** Conforming variants of the creating area. */
export const CREATING_VARIANTS = [
  {
    id: 'random-ids',
    area: 'creating',
    description: 'assigns random, non-sequential positive 63-bit ids',
    overrides: {
      allocateId: async (_fields, _reference, server) => server.store.randomId(),
    },
  },
  { id: 'ids-from-zero', area: 'creating', description: 'assigns ids from 0 (an int64 like any other)', options: { firstId: 0n } },
  {
    id: 'strict-bodies',
    area: 'creating',
    description: 'refuses a NewPet with members other than name, categoryId and status with a 400 Error (the spec does not say they are allowed)',
    overrides: {
      readNewPet: (text, reference, server) => {
        let body: unknown;
        try {
          body = server.seams.parseBody(text);
        } catch {
          return reference(text);
        }
        const unknown = isNewPetObject(body) ? unknownMembers(body) : [];
        return unknown.length > 0 ? invalid('invalid_body', `unknown member(s): ${unknown.join(', ')}`) : reference(text);
      },
    },
  },
  {
    id: 'name-max-255',
    area: 'creating',
    description: 'refuses a name longer than 255 characters with a 400 Error (the spec states no maximum)',
    overrides: {
      readName: (raw, reference) => (typeof raw === 'string' && [...raw].length > NAME_MAX ? { problem: `name must be at most ${NAME_MAX} characters` } : reference(raw)),
    },
  },
  {
    id: 'name-varchar-64',
    area: 'creating',
    description: 'refuses a name longer than 64 characters, and the empty name, with a 400 Error: a VARCHAR(64) NOT NULL column checked before the insert (the spec states no length)',
    overrides: {
      readName: (raw, reference) => (typeof raw === 'string' && ([...raw].length > 64 || raw === '') ? { problem: 'name must be 1 to 64 characters' } : reference(raw)),
    },
  },
  {
    id: 'name-printable-ascii',
    area: 'creating',
    description: 'refuses a name holding anything but printable ASCII with a 400 Error: a latin1 column behind a validator that will not store what it cannot show (the spec states no character set)',
    overrides: {
      readName: (raw, reference) => (typeof raw === 'string' && !/^[\x20-\x7e]*$/.test(raw) ? { problem: 'name must be printable ASCII' } : reference(raw)),
    },
  },
  {
    id: 'location-header',
    area: 'creating',
    description: 'sends a Location header with every 201',
    overrides: {
      respond: onAnswer('createPet', (answer, _request, server) => (answer.status === 201
        ? withHeaders(answer, { location: `${server.settings.basePath}/pets/${String((answer.json as PetBody).id)}` })
        : answer)),
    },
  },
  {
    id: 'name-controls-refused',
    area: 'creating',
    description: 'refuses a name holding control characters or U+0000 with a 400 Error (the spec states no character set)',
    overrides: {
      readName: (raw, reference) => (typeof raw === 'string' && CONTROL_CHARACTER.test(raw) ? { problem: 'name must not hold control characters' } : reference(raw)),
    },
  },
  {
    id: 'name-unique-400',
    area: 'creating',
    description: 'keeps names unique and refuses a name another pet has with a 400 Error (the spec neither requires nor forbids it)',
    overrides: {
      respond: async (operation, request, reference, server) => {
        const read = operation === 'createPet' ? server.seams.readNewPet(bodyText(request)) : undefined;
        const taken = read?.ok === true && typeof read.pet.name === 'string' && server.store.all().some((pet) => pet.name === read.pet.name);
        return taken ? server.seams.error(400, 'invalid_body', 'name must be unique') : reference(operation, request);
      },
    },
  },
  {
    id: 'number-forms-accepted',
    area: 'creating',
    description: 'takes a categoryId written 1e2, 7.0 or -0 as the integer it is (JSON Schema counts them as integers; the spec names only "integer, int64")',
    overrides: {
      readCategoryId: (raw, reference) => {
        if (!isLosslessNumber(raw) || INTEGER_LITERAL.test(raw.value)) return reference(raw);
        const value = Number(raw.value);
        return Number.isSafeInteger(value) ? { value: BigInt(value) } : reference(raw);
      },
    },
  },
  {
    id: 'lone-surrogate-replaced',
    area: 'creating',
    description: 'stores a lone surrogate of a name as U+FFFD and answers with what it stored, as Go\'s encoding/json reads one (RFC 8259 §8.2 leaves it unpredictable)',
    overrides: {
      readName: (raw, reference) => reference(typeof raw === 'string' ? raw.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd') : raw),
    },
  },
  {
    id: 'lone-surrogate-refused',
    area: 'creating',
    description: 'refuses a name holding a lone surrogate with a 400 Error (no text: a UTF-8 column cannot hold it)',
    overrides: {
      readName: (raw, reference) => (typeof raw === 'string' && /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(raw) ? { problem: 'name must be Unicode text' } : reference(raw)),
    },
  },
  {
    id: 'chunked-411',
    area: 'creating',
    description: 'refuses a request body sent chunked with 411 Length Required and an Error, as servers that need a Content-Length do (RFC 9110 §15.5.12)',
    overrides: {
      respond: async (operation, request, reference, server) => (/chunked/i.test(String(request.headers['transfer-encoding'] ?? ''))
        ? server.seams.error(411, 'length_required', 'send the body with a Content-Length')
        : reference(operation, request)),
    },
  },
  {
    id: 'json-media-type-only',
    area: 'creating',
    description: 'refuses a createPet body that does not come as application/json (text/plain, or no Content-Type at all) with 415 and an Error, as Spring and ASP.NET Core do (RFC 9110 §15.5.16)',
    overrides: {
      respond: async (operation, request, reference, server) => (operation === 'createPet' && !/^application\/json\b/i.test(String(request.headers['content-type'] ?? ''))
        ? server.seams.error(415, 'unsupported_media_type', 'send the NewPet as application/json')
        : reference(operation, request)),
    },
  },
] as const satisfies readonly VariantSpec[];
