// Launches a headless Chromium through playwright-core for the browser tests and the Phaser
// benchmark: no GPU, no network of its own, a fresh profile each launch. Which Chromium, first found:
//   1. AICC_CHROMIUM — a Chromium binary's path, or `bundled` to force the npm one (3.);
//   2. the system's, /usr/lib/chromium/chromium (Debian's `chromium` package);
//   3. the one in the npm dev dependency @sparticuz/chromium (Linux x64 only), so `npm ci && npm
//      test` needs nothing but Node. It ships brotli-packed: the first launch on a machine unpacks
//      it (a few seconds) into node_modules/.cache/aicc-chromium/<version>/, where later ones find it.
// `npx playwright install` cannot work on this machine, so playwright-core never brings its own.

import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { brotliDecompress } from 'node:zlib';
import { chromium, type BrowserContext } from 'playwright-core';

/** /usr/lib/chromium/chromium, not /usr/bin/chromium: the wrapper script prints a stray shell error. */
export const SYSTEM_CHROMIUM = '/usr/lib/chromium/chromium';

export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
];

/**
 * The bundled Chromium's WebGL: ANGLE on SwiftShader's Vulkan, from the libraries unpacked beside
 * the binary (the graphics part of @sparticuz/chromium's own `args`; the rest of those are for
 * AWS Lambda, and some, like --disable-web-security, would change what the tests check).
 */
export const BUNDLED_FLAGS = ['--use-gl=angle', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist'];

/** Where this machine may have a Chromium; tests pass their own to pin the order of precedence. */
export interface ChromiumPlaces {
  /** AICC_CHROMIUM: a Chromium binary's path, `bundled`, or undefined (empty counts as unset). */
  env: string | undefined;
  /** The system Chromium's binary, used when it exists. */
  system: string;
  /** @sparticuz/chromium's folder of packed binaries (its bin/), undefined when not installed for this machine. */
  bundled: string | undefined;
}

export type ChromiumChoice =
  | { from: 'AICC_CHROMIUM' | 'system' | 'given'; executablePath: string }
  | { from: 'bundled'; packed: string }
  | { from: 'none'; problem: string };

const INSTALL_HINT =
  "run `npm ci` on Linux x64 (it installs the dev dependency @sparticuz/chromium), or install Debian's Chromium (as root: apt-get install -y chromium), or point AICC_CHROMIUM at a Chromium binary";

/** This machine's places: AICC_CHROMIUM, Debian's path, and @sparticuz/chromium if it is installed and runs here. */
export function chromiumPlaces(): ChromiumPlaces {
  return { env: process.env.AICC_CHROMIUM, system: SYSTEM_CHROMIUM, bundled: bundledPacked() };
}

function bundledPacked(): string | undefined {
  if (process.platform !== 'linux' || process.arch !== 'x64') return undefined;
  try {
    // Resolved from here (or from a bench bundle's folder): the node_modules holding it, not a fixed path.
    const packed = join(dirname(createRequire(import.meta.url).resolve('@sparticuz/chromium')), '..', 'bin');
    return existsSync(join(packed, 'chromium.br')) ? packed : undefined;
  } catch {
    return undefined;
  }
}

/** Which Chromium to launch; never falls back past an AICC_CHROMIUM that names something missing. */
export function chooseChromium(places: ChromiumPlaces = chromiumPlaces()): ChromiumChoice {
  const env = places.env === '' ? undefined : places.env;
  if (env === 'bundled') {
    if (places.bundled !== undefined) return { from: 'bundled', packed: places.bundled };
    return {
      from: 'none',
      problem: `AICC_CHROMIUM=bundled asks for @sparticuz/chromium's Chromium, which is not installed for this machine (${process.platform}-${process.arch}; it ships Linux x64 only): run \`npm ci\`, or unset AICC_CHROMIUM`,
    };
  }
  if (env !== undefined) {
    if (existsSync(env)) return { from: 'AICC_CHROMIUM', executablePath: env };
    return {
      from: 'none',
      problem: `AICC_CHROMIUM is ${env}, which does not exist: point it at a Chromium binary, set it to \`bundled\` for the npm one, or unset it`,
    };
  }
  if (existsSync(places.system)) return { from: 'system', executablePath: places.system };
  if (places.bundled !== undefined) return { from: 'bundled', packed: places.bundled };
  return {
    from: 'none',
    problem: `No Chromium here (no AICC_CHROMIUM, none at ${places.system}, no @sparticuz/chromium for ${process.platform}-${process.arch}): ${INSTALL_HINT}`,
  };
}

/** Why Chromium cannot be launched here (or from `path`, when given), with the fix; undefined when it can. */
export function chromiumProblem(path?: string): string | undefined {
  if (path === undefined) {
    const choice = chooseChromium();
    return choice.from === 'none' ? choice.problem : undefined;
  }
  return existsSync(path) ? undefined : `Chromium is not installed at ${path}: ${INSTALL_HINT}`;
}

export interface Chromium {
  context: BrowserContext;
  /** Which Chromium runs, and its binary. */
  from: 'AICC_CHROMIUM' | 'system' | 'given' | 'bundled';
  executablePath: string;
  close(): Promise<void>;
}

export interface LaunchOptions {
  timeoutMs?: number;
  /** This binary, instead of the choice. */
  executablePath?: string;
  /** This choice instead of this machine's (`chooseChromium()`), e.g. the bundled one forced. */
  choice?: ChromiumChoice;
}

/** A fresh Chromium with its own temporary profile; throws the fix when there is none. */
export async function launchChromium(options: LaunchOptions = {}): Promise<Chromium> {
  const choice = options.executablePath === undefined ? (options.choice ?? chooseChromium()) : givenChromium(options.executablePath);
  if (choice.from === 'none') throw new Error(choice.problem);
  let executablePath: string;
  let args = CHROMIUM_FLAGS;
  let env = process.env;
  if (choice.from === 'bundled') {
    const dir = await unpackedChromium(choice.packed);
    executablePath = join(dir, 'chromium');
    args = [...CHROMIUM_FLAGS, ...BUNDLED_FLAGS];
    // Its NSS and expat (a slim Debian has neither) and its own fonts, so it runs the same everywhere.
    const libraries = [join(dir, 'lib'), process.env.LD_LIBRARY_PATH].filter(Boolean).join(':');
    env = { ...process.env, LD_LIBRARY_PATH: libraries, FONTCONFIG_FILE: join(dir, 'fonts.conf') };
  } else executablePath = choice.executablePath;
  const profile = mkdtempSync(join(tmpdir(), 'aicc-chromium-'));
  try {
    const context = await chromium.launchPersistentContext(profile, {
      executablePath,
      headless: true,
      args,
      env,
      timeout: options.timeoutMs ?? 30_000,
      viewport: { width: 960, height: 640 },
    });
    return {
      context,
      from: choice.from,
      executablePath,
      async close() {
        await context.close();
        rmSync(profile, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
}

function givenChromium(path: string): ChromiumChoice {
  const problem = chromiumProblem(path);
  return problem === undefined ? { from: 'given', executablePath: path } : { from: 'none', problem };
}

const unpacking = new Map<string, Promise<string>>();

/** The folder @sparticuz/chromium's `packed` binaries are unpacked into: once per process, and per machine. */
export function unpackedChromium(packed: string): Promise<string> {
  let dir = unpacking.get(packed);
  if (dir === undefined) {
    dir = unpackChromium(packed);
    unpacking.set(packed, dir);
    dir.catch(() => unpacking.delete(packed));
  }
  return dir;
}

/**
 * Unpacks into node_modules/.cache/aicc-chromium/<version>/ beside the package: the binary, the
 * SwiftShader libraries (Chromium looks for them next to itself), lib/ (NSS, expat) and fonts/.
 * Not @sparticuz/chromium's own executablePath(): that writes the fixed /tmp/chromium in place,
 * so a test process starting while another is still writing it would launch half a binary. Here
 * each process unpacks into a folder of its own and renames it into place; the first rename wins.
 */
export async function unpackChromium(packed: string): Promise<string> {
  const { version } = JSON.parse(readFileSync(join(packed, '..', 'package.json'), 'utf8')) as { version: string };
  const cache = join(packed, '..', '..', '..', '.cache', 'aicc-chromium');
  const dir = join(cache, version);
  if (existsSync(join(dir, 'chromium'))) return dir;
  mkdirSync(cache, { recursive: true });
  removeAbandoned(cache);
  const staging = mkdtempSync(join(cache, `unpacking-${process.pid}-`));
  try {
    chmodSync(staging, 0o755); // mkdtemp's 0700 would keep it from other users once renamed
    writeFileSync(join(staging, 'chromium'), await unbrotli(join(packed, 'chromium.br')), { mode: 0o755 });
    for (const name of ['swiftshader', 'fonts', 'al2023']) untar(await unbrotli(join(packed, `${name}.tar.br`)), staging);
    // Theirs lists /tmp/fonts; this one lists the folder the fonts end up in.
    writeFileSync(
      join(staging, 'fonts.conf'),
      `<?xml version="1.0"?>\n<fontconfig>\n  <dir>${xml(join(dir, 'fonts'))}</dir>\n  <cachedir>${xml(join(dir, 'fonts-cache'))}</cachedir>\n</fontconfig>\n`,
    );
    try {
      renameSync(staging, dir);
    } catch (error) {
      if (!existsSync(join(dir, 'chromium'))) throw error; // not another process's win: a real failure
    }
    return dir;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** Staging folders of processes that died while unpacking (each is a few hundred MB). */
function removeAbandoned(cache: string): void {
  for (const name of readdirSync(cache)) {
    const pid = /^unpacking-(\d+)-/.exec(name)?.[1];
    if (pid !== undefined && !alive(Number(pid))) rmSync(join(cache, name), { recursive: true, force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const unbrotliBuffer = promisify(brotliDecompress);

/** Off the main thread: the binary is 130 MB unpacked. */
async function unbrotli(path: string): Promise<Buffer> {
  return unbrotliBuffer(await readFile(path));
}

/** Writes a ustar archive's folders and regular files under `into` (all @sparticuz/chromium's archives hold). */
export function untar(archive: Buffer, into: string): void {
  const text = (at: number, length: number) => archive.toString('latin1', at, at + length).replace(/\0.*$/s, '');
  for (let at = 0; at + 512 <= archive.length; ) {
    if (archive.subarray(at, at + 512).every((byte) => byte === 0)) break;
    const name = [text(at + 345, 155), text(at + 0, 100)].filter(Boolean).join('/');
    const size = parseInt(text(at + 124, 12).trim() || '0', 8);
    const mode = parseInt(text(at + 100, 8).trim() || '644', 8);
    const type = text(at + 156, 1) || '0';
    const path = join(into, name);
    const inside = relative(into, path);
    if (isAbsolute(name) || inside.startsWith('..') || isAbsolute(inside)) throw new Error(`untar: entry ${name} would land outside ${into}`);
    if (type === '5') mkdirSync(path, { recursive: true });
    else if (type === '0') {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, archive.subarray(at + 512, at + 512 + size), { mode });
    } else throw new Error(`untar: entry ${name} has type ${type}; only folders and regular files are unpacked`);
    at += 512 + Math.ceil(size / 512) * 512;
  }
}

function xml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
