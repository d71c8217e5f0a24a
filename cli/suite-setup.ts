// Runs in the suite worker before each area's file (vitest's setupFiles): the worker judges with the
// spec documents the CLI read, rather than reading and parsing them again in every run's fresh worker.
import { inject } from 'vitest';
import { adoptSpecDocuments } from '../helpers/spec/documents.js';

adoptSpecDocuments(inject('specDocuments'));
