import { bodyText } from '../../server/creating.js';
import { invalid, isNewPetObject, unknownMembers } from '../../server/new-pet.js';
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
] as const satisfies readonly VariantSpec[];
