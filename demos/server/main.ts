// The `npm run demo:web` entry (run with tsx): only hands the process's arguments to the command.

import { demoWebCommand } from './command.js';

process.exitCode = await demoWebCommand(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr });
