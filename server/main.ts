#!/usr/bin/env node
// The reference server of the package: `node dist/server/main.js [--port N] [--key K]…`.
import { serveCommandLine } from './serve.js';

await serveCommandLine(process.argv.slice(2));
