import { runGarden } from '../../demos/garden/garden.js';
import { ajvValidators } from '../validators/ajv.js';
import type { CliIo } from './cliMain.js';

const HELP = `aicc demo — run the headless example: a character driven by a scripted agent

Usage: aicc demo [--json]

  --json    print the story and the summary as one JSON object
`;

export async function demoCommand(argv: string[], io: CliIo): Promise<number> {
  if (argv.includes('-h') || argv.includes('--help')) {
    io.stdout.write(HELP);
    return 0;
  }
  const unknown = argv.find((arg) => arg !== '--json');
  if (unknown !== undefined) {
    io.stderr.write(`aicc demo: unknown option "${unknown}"; run \`aicc demo --help\`\n`);
    return 2;
  }
  const run = await runGarden({ validators: ajvValidators() });
  if (argv.includes('--json')) {
    io.stdout.write(`${JSON.stringify(run)}\n`);
    return 0;
  }
  io.stdout.write(`${run.story.join('\n')}\n\n`);
  const { ticks, calls, refusals, gathered } = run.summary;
  io.stdout.write(`summary: ${gathered} apples gathered in ${ticks} ticks\n`);
  io.stdout.write(`  calls by tool:    ${Object.entries(calls).map(([k, v]) => `${k} ${v}`).join(', ')}\n`);
  io.stdout.write(`  refusals by code: ${Object.entries(refusals).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}\n`);
  return 0;
}
