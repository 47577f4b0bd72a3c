import { mkdirSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runVillage } from '../../src/worlds/village/run.js';
import { buildVillage } from '../../src/worlds/village/world.js';
import { parseRecording } from '../../src/recording/recording.js';
import { replay } from '../../src/recording/replay.js';
import { main } from '../../src/node/cli/main.js';

async function recorded(seed: number): Promise<{ story: string[]; recording: string }> {
  let recording = '';
  const run = await runVillage({ seed, record: (line) => (recording += line) });
  expect(run.recordingProblems).toEqual([]);
  return { story: run.story, recording };
}

async function cli(argv: string[], stdin?: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io = {
    stdout: { write: (t: string) => (out += t) },
    stderr: { write: (t: string) => (err += t) },
    ...(stdin && {
      stdin: (async function* () {
        yield* stdin;
      })(),
    }),
  };
  const code = await main(argv, io);
  return { code, out, err };
}

const tmp = new URL('../.tmp/', import.meta.url);
mkdirSync(tmp, { recursive: true });

describe('the village', () => {
  it('ends with every villager having met its goal: a trade, a pie and a ballad', async () => {
    const run = await runVillage({ seed: 7 });
    expect(run.result.stoppedBy).toBe('condition');
    const story = run.story.join('\n');
    expect(story).toMatch(/Bram gives the \w+ apple to Ada\./);
    expect(story).toMatch(/Ada gives the \w+ loaf to Bram\./);
    expect(story).toContain('The apple pie is in the oven!');
    expect(story).toContain('a ballad for Millbrook');
    expect(run.story.at(-1)).toMatch(/everyone has done what they set out to do/);
  });

  it('tells the same story and writes the same recording, byte for byte, for the same seed', async () => {
    const first = await recorded(21);
    const second = await recorded(21);
    expect(second.story).toEqual(first.story);
    expect(second.recording).toBe(first.recording);
  });

  it('replays a recorded run with every tool_result and event matching, and no agent', async () => {
    const { recording } = await recorded(9);
    const parsed = parseRecording(recording);
    const report = await replay(parsed, (header) => buildVillage(header.seed));
    expect(report.mismatches).toEqual([]);
    expect(report.agreed.tool_result).toBe(report.compared.tool_result);
    expect(report.agreed.event).toBe(report.compared.event);
    expect(report.compared.tool_result).toBe(parsed.entries.filter((e) => e.message.type === 'tool_call').length);
  });

  describe('aicc replay and aicc validate', () => {
    it('replay says every message matched, and validate says the recording is valid', async () => {
      const file = new URL(`village-${process.pid}.ndjson`, tmp).pathname;
      const made = await cli(['demo', '--seed', '4', '--record', file]);
      expect(made.code).toBe(0);
      const validated = await cli(['validate', file]);
      expect(validated).toMatchObject({ code: 0 });
      expect(validated.out).toMatch(/valid — village, seed 4/);
      const replayed = await cli(['replay', file]);
      expect(replayed.code).toBe(0);
      expect(replayed.out).toMatch(/tool_result\s+(\d+)\/\1 matched/);
      expect(replayed.out).toContain('replay: every message matched');
    });

    it('a corrupted recording is rejected with its line number', async () => {
      const file = new URL(`corrupt-${process.pid}.ndjson`, tmp).pathname;
      const lines = (await recorded(4)).recording.split('\n');
      const index = lines.findIndex((line, i) => i > 30 && line.includes('"type":"tool_result"'));
      lines[index] = lines[index]!.replace('"type":"tool_result"', '"type":"tool_rezult"');
      writeFileSync(file, lines.join('\n'));
      for (const command of ['validate', 'replay']) {
        const { code, err } = await cli([command, file]);
        expect(code).toBe(1);
        expect(err).toBe(`aicc ${command}: ${file}:${index + 1}: message: type "tool_rezult" is not an aicc/0.1 message type\n`);
      }
    });

    it('a recording whose world does something else is reported as a mismatch', async () => {
      const file = new URL(`doctored-${process.pid}.ndjson`, tmp).pathname;
      const text = (await recorded(4)).recording.replace(/"Village Square"/, '"Village Sqaure"');
      writeFileSync(file, text);
      const { code, out } = await cli(['replay', file]);
      expect(code).toBe(1);
      expect(out).toContain('first difference for');
      expect(out).toContain('replay: MISMATCH');
    });

    it('a missing file is one line and exit code 2', async () => {
      expect(await cli(['replay', '/nonexistent/run.ndjson'])).toEqual({
        code: 2,
        out: '',
        err: 'aicc replay: cannot read /nonexistent/run.ndjson: no such file\n',
      });
      expect((await cli(['validate'])).code).toBe(2);
    });
  });

  describe('--play', () => {
    it('lets a person play a villager through standard input', async () => {
      const { code, out } = await cli(['demo', '--play', 'cleo'], ['look', 's', 'say Hello, market!', 'take cabbage', 'dance', 'quit']);
      expect(code).toBe(0);
      expect(out).toContain('You are Cleo, the bard.');
      expect(out).toContain('Tavern');
      expect(out).toMatch(/You can't: .*cabbage/);
      expect(out).toContain(`I don't know how to "dance"`);
      // The others carry on around the player.
      expect(out).toContain('Morning in Millbrook. Ada, Bram set about their day.');
      expect(out).toMatch(/Cleo walks south from the Tavern to the Market\./);
      expect(out).toContain('Cleo says: "Hello, market!"');
    });

    it('ends the day when standard input ends', async () => {
      const { code, out } = await cli(['demo', '--play', 'ada'], ['wait']);
      expect(code).toBe(0);
      expect(out).toContain('You are Ada, the baker.');
      // The story ends where the input ran out, not with an evening the day never reached.
      expect(out).toMatch(/The player's input runs out at tick \d+; the day ends there\./);
      expect(out).not.toMatch(/Evening falls/);
    });
  });
});

describe('the built `aicc` command', () => {
  it('plays through a real standard input pipe', async () => {
    const { spawnSync } = await import('node:child_process');
    const cli = new URL('../../dist/cli.js', import.meta.url).pathname;
    const run = spawnSync(process.execPath, [cli, 'demo', '--play', 'bram'], {
      input: 'look\nsay Apples for sale!\nquit\n',
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('You are Bram, the farmer.');
    expect(run.stdout).toContain('Mill. The millwheel creaks');
    expect(run.stdout).toContain('You say: "Apples for sale!"');
    expect(run.stdout).toContain('Bram says: "Apples for sale!"');
  });
});
