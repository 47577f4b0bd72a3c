// A sweep's results file: one JSON line per finished episode, appended as each finishes, so a sweep
// killed at any moment loses at most the episodes in flight. A kill can cut the last line short; on
// reading, that torn tail is cut off (and the file truncated back to its last whole line before new
// lines are appended), so `--resume` re-runs exactly the episodes without a whole line. The file (and
// its folder) is made, or cut, only when the first episode arrives: a sweep that fails before it
// leaves the file as it was. checkResultsPath finds, before the sweep, a path that could never be written.

import { accessSync, closeSync, constants, existsSync, ftruncateSync, mkdirSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { CapsuleError } from '../../base/errors.js';
import type { EpisodeSummary } from '../../research/episode.js';
import { episodeKey } from '../../research/sweepPlan.js';

export interface ReadResults {
  episodes: EpisodeSummary[];
  /** jobKey of every episode in the file. */
  keys: Set<string>;
  /** Bytes of whole lines: where new lines go. */
  wholeBytes: number;
  /** True when the file ended in a torn line (cut off on open for appending). */
  torn: boolean;
}

/** The episodes in `path` (none when it does not exist). A malformed whole line is an error: the file is not a results file. */
export function readResults(path: string): ReadResults {
  if (!existsSync(path)) return { episodes: [], keys: new Set(), wholeBytes: 0, torn: false };
  const bytes = readFileSync(path);
  const end = bytes.lastIndexOf(0x0a) + 1;
  const episodes: EpisodeSummary[] = [];
  const keys = new Set<string>();
  const lines = bytes.subarray(0, end).toString('utf8').split('\n');
  lines.pop(); // the empty string after the last newline
  lines.forEach((line, index) => {
    let episode: EpisodeSummary;
    try {
      episode = JSON.parse(line) as EpisodeSummary;
    } catch {
      throw new CapsuleError(
        'AICC_INVALID_OPTION',
        `${path}:${index + 1}: not a JSON line; a sweep's results file holds one episode summary per line (write to a new file or remove this one)`,
      );
    }
    if (typeof episode?.world !== 'string' || !Number.isSafeInteger(episode.seed) || episode.params === null || typeof episode.params !== 'object') {
      throw new CapsuleError('AICC_INVALID_OPTION', `${path}:${index + 1}: not an episode summary (it needs world, seed and params)`);
    }
    const key = episodeKey(episode);
    // A line written twice (a job that ran twice before its first result was read) counts once.
    if (keys.has(key)) return;
    keys.add(key);
    episodes.push(episode);
  });
  return { episodes, keys, wholeBytes: end, torn: end < bytes.length };
}

/**
 * Refuses a results file that could never be written: a folder, a path under a file, or a place this
 * process may not write. A missing folder is fine: it is made with the file.
 */
export function checkResultsPath(path: string, place: string): void {
  const fail = (why: string): never => {
    throw new CapsuleError('AICC_INVALID_OPTION', `${place}: the results file (--out) ${path} ${why}`);
  };
  if (existsSync(path)) {
    if (statSync(path).isDirectory()) fail(`is a folder; name a file in it, like ${join(path, 'results.jsonl')}`);
    if (!writable(path)) fail('cannot be written (no permission); name another file');
    return;
  }
  let folder = dirname(resolve(path));
  while (!existsSync(folder)) folder = dirname(folder);
  if (!statSync(folder).isDirectory()) fail(`cannot be made: ${folder} is a file, not a folder; name a file in a folder`);
  if (!writable(folder)) fail(`cannot be made: no permission to write in ${folder}; name a file in a folder you may write in`);
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** Appends episode lines to a results file, each in one write, cutting off a torn tail first. */
export class ResultsWriter {
  private fd: number | undefined;
  private closed = false;
  /** Where the next line goes: the end of the whole lines. */
  private position: number;

  /** `wholeBytes` from readResults: at the first line the file is made, or truncated there (a torn line dropped). */
  constructor(
    readonly path: string,
    private readonly wholeBytes = 0,
  ) {
    this.position = wholeBytes;
  }

  /** Writes one episode as one line at the end of the file. */
  append(episode: EpisodeSummary): void {
    if (this.closed) throw new CapsuleError('AICC_INVALID_OPTION', `ResultsWriter: ${this.path} is closed`);
    this.fd ??= this.open();
    const line = Buffer.from(`${JSON.stringify(episode)}\n`, 'utf8');
    let written = 0;
    // One call nearly always; the loop is for the rare short write.
    while (written < line.length) written += writeSync(this.fd, line, written, line.length - written, this.position + written);
    this.position += line.length;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    this.closed = true;
  }

  private open(): number {
    try {
      const exists = existsSync(this.path);
      if (!exists) mkdirSync(dirname(resolve(this.path)), { recursive: true });
      const fd = openSync(this.path, exists ? 'r+' : 'w');
      ftruncateSync(fd, this.wholeBytes);
      return fd;
    } catch (error) {
      throw new CapsuleError('AICC_INVALID_OPTION', `ResultsWriter: cannot write the results file ${this.path} (${(error as Error).message})`);
    }
  }
}
