// An aicc/0.1 program for the eval's tests, as a user would write one: it speaks NDJSON frames on
// stdin and stdout through the built package, looks around on each tick and now and then walks.
// `node walker.mjs [CRASH_AFTER]`: exits with code 3, after a word on stderr, after that many calls.

import { AgentClient } from '../../../../dist/index.js';
import { streamLink } from '../../../../dist/node.js';

const crashAfter = process.argv[2] === undefined ? Number.POSITIVE_INFINITY : Number(process.argv[2]);
const directions = ['north', 'south', 'east', 'west'];
const client = await AgentClient.connect(streamLink(process.stdin, process.stdout));
let calls = 0;
let busy = false;
client.on('tick', async ({ tick }) => {
  if (busy || tick % 5 !== 0) return;
  busy = true;
  try {
    const call = calls % 3 === 2 ? ['go', { direction: directions[calls % 4] }] : ['look', {}];
    calls++;
    await client.call(call[0], call[1]);
    if (calls >= crashAfter) {
      process.stderr.write(`walker: giving up after ${calls} calls\n`);
      process.exit(3);
    }
  } catch {
    // A refused call is the eval's to count, not this program's to die of.
  } finally {
    busy = false;
  }
});
client.on('close', () => process.exit(0));
