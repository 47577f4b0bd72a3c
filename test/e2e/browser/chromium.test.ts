// Which Chromium the browser tests and the benchmark launch — AICC_CHROMIUM, then the system's, then
// the npm dev dependency's — pinned with the places passed in; the npm one unpacked safely when
// several test processes ask at once; and launched for real (forced, even where a system Chromium
// exists) on a page that draws with WebGL, whose pixels read back as drawn.

import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chooseChromium, chromiumPlaces, chromiumProblem, launchChromium, unpackChromium, untar, type Chromium, type ChromiumPlaces } from './chromium.js';
import { decodePng } from './png.js';

const scratch = mkdtempSync(join(tmpdir(), 'aicc-chromium-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('chooseChromium', () => {
  const envBinary = join(scratch, 'env-chromium');
  const systemBinary = join(scratch, 'system-chromium');
  const missing = join(scratch, 'missing-chromium');
  const packed = join(scratch, 'node_modules', '@sparticuz', 'chromium', 'bin');
  writeFileSync(envBinary, '');
  writeFileSync(systemBinary, '');
  const places = (over: Partial<ChromiumPlaces>): ChromiumPlaces => ({ env: undefined, system: systemBinary, bundled: packed, ...over });

  it('takes AICC_CHROMIUM first, over a system Chromium and the npm one', () => {
    expect(chooseChromium(places({ env: envBinary }))).toEqual({ from: 'AICC_CHROMIUM', executablePath: envBinary });
  });

  it('takes the npm one when AICC_CHROMIUM is `bundled`, even with a system Chromium', () => {
    expect(chooseChromium(places({ env: 'bundled' }))).toEqual({ from: 'bundled', packed });
  });

  it('takes the system Chromium next, over the npm one', () => {
    expect(chooseChromium(places({}))).toEqual({ from: 'system', executablePath: systemBinary });
    expect(chooseChromium(places({ env: '' }))).toEqual({ from: 'system', executablePath: systemBinary });
  });

  it('takes the npm one when there is no system Chromium', () => {
    expect(chooseChromium(places({ system: missing }))).toEqual({ from: 'bundled', packed });
  });

  it('does not fall back past an AICC_CHROMIUM that names something missing', () => {
    expect(chooseChromium(places({ env: missing }))).toEqual({
      from: 'none',
      problem: `AICC_CHROMIUM is ${missing}, which does not exist: point it at a Chromium binary, set it to \`bundled\` for the npm one, or unset it`,
    });
    expect(chooseChromium(places({ env: 'bundled', bundled: undefined }))).toMatchObject({
      from: 'none',
      problem: expect.stringMatching(
        /^AICC_CHROMIUM=bundled asks for @sparticuz\/chromium's Chromium, which is not installed for this machine \(.+; it ships Linux x64 only\): run `npm ci`, or unset AICC_CHROMIUM$/,
      ),
    });
  });

  it('names every way to get one when there is none', () => {
    const choice = chooseChromium(places({ system: missing, bundled: undefined }));
    expect(choice).toMatchObject({
      from: 'none',
      problem: expect.stringContaining(`No Chromium here (no AICC_CHROMIUM, none at ${missing}, no @sparticuz/chromium for `),
    });
    expect(choice).toMatchObject({
      problem: expect.stringContaining('run `npm ci` on Linux x64 (it installs the dev dependency @sparticuz/chromium), or install Debian'),
    });
  });
});

describe('chromiumProblem', () => {
  it('names a missing binary and the ways to get a Chromium', () => {
    expect(chromiumProblem('/nonexistent/chromium')).toBe(
      "Chromium is not installed at /nonexistent/chromium: run `npm ci` on Linux x64 (it installs the dev dependency @sparticuz/chromium), or install Debian's Chromium (as root: apt-get install -y chromium), or point AICC_CHROMIUM at a Chromium binary",
    );
  });

  it('makes a launch of a missing binary fail, naming the fix', async () => {
    await expect(launchChromium({ executablePath: '/nonexistent/chromium' })).rejects.toThrow(
      /^Chromium is not installed at \/nonexistent\/chromium: run `npm ci`/,
    );
  });
});

/** A ustar archive of these files (a name ending in / is a folder). */
function tar(files: Record<string, string>): Buffer {
  const blocks: Buffer[] = [];
  for (const [name, body] of Object.entries(files)) {
    const header = Buffer.alloc(512);
    header.write(name, 0, 'latin1');
    header.write(name.endsWith('/') ? '0000755\0' : '0000644\0', 100, 'latin1');
    header.write(`${body.length.toString(8).padStart(11, '0')}\0`, 124, 'latin1');
    header.write(name.endsWith('/') ? '5' : '0', 156, 'latin1');
    header.write('ustar\x0000', 257, 'latin1');
    blocks.push(header, Buffer.from(body, 'latin1'), Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  return Buffer.concat([...blocks, Buffer.alloc(1024)]);
}

/** A stand-in for @sparticuz/chromium's bin/ (tiny files, the same layout), in a node_modules of its own. */
function fakePackage(): { packed: string; cache: string } {
  const nodeModules = join(mkdtempSync(join(scratch, 'fake-')), 'node_modules');
  const packed = join(nodeModules, '@sparticuz', 'chromium', 'bin');
  mkdirSync(packed, { recursive: true });
  writeFileSync(join(packed, '..', 'package.json'), '{"name":"@sparticuz/chromium","version":"0.0.0-fake"}');
  writeFileSync(join(packed, 'chromium.br'), brotliCompressSync('#!/bin/sh\necho fake chromium\n'));
  writeFileSync(join(packed, 'swiftshader.tar.br'), brotliCompressSync(tar({ 'libGLESv2.so': 'gles' })));
  writeFileSync(
    join(packed, 'fonts.tar.br'),
    brotliCompressSync(tar({ 'fonts.conf': '<dir>/tmp/fonts</dir>', 'fonts/': '', 'fonts/Open_Sans/': '', 'fonts/Open_Sans/OpenSans-Regular.ttf': 'font' })),
  );
  writeFileSync(join(packed, 'al2023.tar.br'), brotliCompressSync(tar({ 'lib/libnss3.so': 'nss' })));
  return { packed, cache: join(nodeModules, '.cache', 'aicc-chromium') };
}

describe('unpackChromium', () => {
  it('unpacks once into the cache beside the package, whoever asks at the same time', async () => {
    const { packed, cache } = fakePackage();
    const dirs = await Promise.all([unpackChromium(packed), unpackChromium(packed), unpackChromium(packed)]);
    const dir = join(cache, '0.0.0-fake');
    expect(dirs).toEqual([dir, dir, dir]);
    expect(readdirSync(cache)).toEqual(['0.0.0-fake']); // the losers' folders are gone
    expect(readFileSync(join(dir, 'chromium'), 'utf8')).toBe('#!/bin/sh\necho fake chromium\n');
    expect(statSync(join(dir, 'chromium')).mode & 0o111).toBe(0o111);
    expect(readFileSync(join(dir, 'libGLESv2.so'), 'utf8')).toBe('gles'); // beside the binary, where Chromium looks
    expect(readFileSync(join(dir, 'lib', 'libnss3.so'), 'utf8')).toBe('nss');
    expect(readFileSync(join(dir, 'fonts', 'Open_Sans', 'OpenSans-Regular.ttf'), 'utf8')).toBe('font');
    expect(readFileSync(join(dir, 'fonts.conf'), 'utf8')).toContain(`<dir>${join(dir, 'fonts')}</dir>`);
    // Once there, it is used as it is.
    writeFileSync(join(packed, 'chromium.br'), 'not brotli');
    expect(await unpackChromium(packed)).toBe(dir);
  });

  it('removes what a dead process left half unpacked, and leaves a live one working', async () => {
    const { packed, cache } = fakePackage();
    // Above Linux's largest pid (2^22), so no process has it.
    mkdirSync(join(cache, 'unpacking-999999999-abc', 'lib'), { recursive: true });
    mkdirSync(join(cache, `unpacking-${process.pid}-xyz`), { recursive: true });
    await unpackChromium(packed);
    expect(readdirSync(cache).sort()).toEqual(['0.0.0-fake', `unpacking-${process.pid}-xyz`]);
  });

  it('refuses an archive entry that would land outside its folder', () => {
    const into = mkdtempSync(join(scratch, 'untar-'));
    expect(() => untar(tar({ '../escaped': 'x' }), into)).toThrow(`untar: entry ../escaped would land outside ${into}`);
    expect(existsSync(join(into, '..', 'escaped'))).toBe(false);
  });
});

describe('the npm Chromium (@sparticuz/chromium), launched for real', () => {
  let browser: Chromium;

  beforeAll(async () => {
    // Forced, as AICC_CHROMIUM=bundled does: the system Chromium, if any, is not taken.
    browser = await launchChromium({ choice: chooseChromium({ ...chromiumPlaces(), env: 'bundled' }) });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('is the one unpacked from node_modules', async () => {
    expect(browser.from).toBe('bundled');
    expect(browser.executablePath).toMatch(/\/node_modules\/\.cache\/aicc-chromium\/153\.\d+\.\d+\/chromium$/);
    expect(browser.context.browser()?.version()).toMatch(/^153\./);
  });

  it('runs on its own NSS and expat, which a bare machine lacks', () => {
    const lib = join(browser.executablePath, '..', 'lib');
    const maps = readdirSync('/proc')
      .filter((pid) => /^\d+$/.test(pid))
      .flatMap((pid) => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith(browser.executablePath) ? [readFileSync(`/proc/${pid}/maps`, 'utf8')] : [];
        } catch {
          return []; // gone meanwhile, or not ours to read
        }
      });
    expect(maps.length).toBeGreaterThan(0);
    for (const library of ['libnss3.so', 'libnspr4.so', 'libexpat.so.1']) expect(maps[0]).toContain(join(lib, library));
  });

  it('draws with WebGL on SwiftShader, and the pixels read back as drawn', async () => {
    const page = await browser.context.newPage();
    try {
      await page.setContent('<body style="margin:0;background:#000"><canvas id="c" width="64" height="64"></canvas></body>');
      const drawn = await page.evaluate(() => {
        const gl = (document.getElementById('c') as HTMLCanvasElement).getContext('webgl', { preserveDrawingBuffer: true });
        if (gl === null) return { renderer: 'no WebGL context', pixel: [] as number[] };
        const shader = (type: number, source: string): WebGLShader => {
          const made = gl.createShader(type)!;
          gl.shaderSource(made, source);
          gl.compileShader(made);
          return made;
        };
        const program = gl.createProgram()!;
        gl.attachShader(program, shader(gl.VERTEX_SHADER, 'attribute vec2 p; void main() { gl_Position = vec4(p, 0.0, 1.0); }'));
        gl.attachShader(program, shader(gl.FRAGMENT_SHADER, 'precision mediump float; void main() { gl_FragColor = vec4(0.2, 0.6, 0.9, 1.0); }'));
        gl.linkProgram(program);
        gl.useProgram(program);
        // Two triangles: the left half of the canvas.
        gl.bindBuffer(gl.ARRAY_BUFFER, gl.createBuffer());
        gl.bufferData(gl.ARRAY_BUFFER, new Float32Array([-1, -1, 0, -1, -1, 1, -1, 1, 0, -1, 0, 1]), gl.STATIC_DRAW);
        gl.enableVertexAttribArray(0);
        gl.vertexAttribPointer(0, 2, gl.FLOAT, false, 0, 0);
        gl.clearColor(1, 0, 0, 1);
        gl.clear(gl.COLOR_BUFFER_BIT);
        gl.drawArrays(gl.TRIANGLES, 0, 6);
        const pixel = new Uint8Array(4);
        gl.readPixels(8, 32, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixel);
        const info = gl.getExtension('WEBGL_debug_renderer_info');
        return { renderer: String(info === null ? gl.getParameter(gl.RENDERER) : gl.getParameter(info.UNMASKED_RENDERER_WEBGL)), pixel: [...pixel] };
      });
      expect(drawn.renderer).toMatch(/SwiftShader/);
      expect(drawn.pixel).toEqual([51, 153, 230, 255]);
      // And on screen, through the compositor: the shape's colour on the left, the clear colour on the right.
      const shot = decodePng(await page.locator('#c').screenshot());
      const at = (x: number, y: number): number[] => [...shot.data.subarray((y * shot.width + x) * 4, (y * shot.width + x) * 4 + 3)];
      expect([shot.width, shot.height]).toEqual([64, 64]);
      expect(at(8, 32)).toEqual([51, 153, 230]);
      expect(at(56, 32)).toEqual([255, 0, 0]);
    } finally {
      await page.close();
    }
  });
});
