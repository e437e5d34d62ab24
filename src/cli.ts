#!/usr/bin/env node
/** The `baton` command (package.json bin): everything is in cli/main.ts. */
import './cli/main.js';
