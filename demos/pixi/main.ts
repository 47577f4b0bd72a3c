// The PixiJS demo page: an orchard drawn by PixiJS v8 whose villagers are driven by scripted agents
// through the capsule — PixiBinding (aicc-capsule/pixi) on the page's display objects, the capsule's
// clock from the PixiJS ticker. `?characters=N` (default 4), `?inspector=0`, `?seed=S`.
//
// The capsule checks the binding's tools with their precompiled validators (pixiValidators, from
// aicc-capsule/core's createCapsule), and PixiJS's own shaders are set up without `new Function`
// (pixi.js/unsafe-eval, PixiJS's documented answer to a CSP): the page runs under
// Content-Security-Policy: script-src 'self'. `window.aiccDemo` is what the browser tests read.

import 'pixi.js/unsafe-eval';
import { Application, Container, Graphics, Text } from 'pixi.js';
import { SeededRandom } from '../../src/adapters/headless/random.js';
import { PixiBinding, pixiValidators } from '../../src/adapters/pixi/index.js';
import { connectInProcess } from '../../src/agent/inProcess.js';
import { createCapsule } from '../../src/core.js';
import { mountInspector } from '../../src/inspector/index.js';
import { type AiccDemo, demoParams, okCalls, pageErrors } from '../shared/page.js';
import { Picker } from './picker.js';

const AREA = { x: 0, y: 0, width: 960, height: 600 };
const COLOURS = [0xd9534f, 0x5bc0de, 0xf0ad4e, 0x9b59b6, 0x34495e, 0xe67e22, 0x1abc9c, 0xc0392b];

const { errors, report } = pageErrors();
void start().catch(report);

async function start(): Promise<void> {
  const { ids, seed, inspector: showInspector } = demoParams({ characters: 4, seed: 'orchard' });
  const random = new SeededRandom(seed);
  const host = document.getElementById('stage')!;
  const app = new Application();
  await app.init({ background: 0x6a9a55, resizeTo: host, antialias: true, preference: 'webgl' });
  host.appendChild(app.canvas);
  const world = new Container();
  app.stage.addChild(world);
  // The orchard keeps its size; the stage scales it into the room the inspector leaves.
  const fit = (): void => {
    world.scale.set(Math.min(app.screen.width / AREA.width, app.screen.height / AREA.height));
  };
  fit();
  app.renderer.on('resize', fit);
  // PixiJS's resizeTo follows the window; the stage also changes when the inspector opens or closes.
  new ResizeObserver(() => app.resize()).observe(host);

  const capsule = createCapsule({ world: { name: 'The Orchard', kind: '2d' }, tickMode: 'fixed', tickRateHz: 10, validators: pixiValidators() });
  const calls = okCalls(capsule, errors);
  const bubbles = new Map<string, Text>();
  const binding = new PixiBinding(capsule, {
    bounds: AREA,
    perceptionRadius: 260,
    onSay: (id, text) => {
      const bubble = bubbles.get(id);
      if (bubble === undefined) return;
      bubble.text = text;
      bubble.visible = true;
      setTimeout(() => (bubble.visible = false), 2500);
    },
  });

  // Two rows of trees (obstacles: they block sight and walking) and apples under them.
  for (let i = 0; i < 6; i++) {
    const tree = new Graphics().circle(0, 0, 26).fill(0x2f6b2a);
    tree.position.set(160 + i * 130, i % 2 === 0 ? 200 : 400);
    world.addChild(tree);
    binding.addObstacle(`tree_${i + 1}`, tree, { kind: 'tree' });
  }
  for (let i = 0; i < 12; i++) {
    const apple = new Graphics().circle(0, 0, 6).fill(0xc62828);
    apple.position.set(Math.round(60 + random.next() * 840), Math.round(60 + random.next() * 480));
    world.addChild(apple);
    binding.addObject(`apple_${i + 1}`, apple, { kind: 'apple' });
  }
  ids.forEach((id, i) => {
    const body = new Graphics().rect(-10, -10, 20, 20).fill(COLOURS[i % COLOURS.length]!);
    body.position.set(80 + ((i * 197) % 800), i % 2 === 0 ? 80 : 520);
    const bubble = new Text({ text: '', style: { fontSize: 13, fill: 0xffffff, stroke: { color: 0x000000, width: 3 } } });
    bubble.anchor.set(0.5, 1);
    bubble.position.set(0, -14);
    bubble.visible = false;
    body.addChild(bubble);
    bubbles.set(id, bubble);
    world.addChild(body);
    binding.addCharacter(id, body, { kind: 'villager', speed: 90 });
  });
  binding.connect({ ticker: app.ticker });

  if (showInspector) mountInspector(capsule, { parent: document.body, dock: 'right' });

  const demo: AiccDemo = {
    ready: false,
    agent: 'scripted',
    capsule,
    characters: () => ids.map((id) => ({ id, x: binding.bodies.get(id)?.node?.x ?? Number.NaN, y: binding.bodies.get(id)?.node?.y ?? Number.NaN })),
    calls,
    errors,
    frameStats: () => binding.frameStats(),
  };
  Object.assign(window, { aiccDemo: demo });

  const capabilities = { sensors: ['sight'], actuators: ['legs', 'voice'], generators: [] };
  await Promise.all(
    ids.map(
      async (id) => new Picker(await connectInProcess(capsule, { character: id, capabilities, agentModel: { class: 'edge_small' } }), random.fork(id), AREA),
    ),
  );
  demo.ready = true;
}
