#!/usr/bin/env node
// The `aicc` command. Each subcommand lives in its own module; this file only dispatches.

import { main } from './cliMain.js';

process.exitCode = await main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr });
