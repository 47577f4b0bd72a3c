// The Phaser demo page: a village whose villagers are driven by agents through the capsule —
// scripted agents in the page (`?agent=scripted`, the default), or, for one villager, pi through
// the pilot over the page's own origin (`?agent=pi`; the demo server proxies /pi to a gateway), or
// an MCP client (`?agent=mcp[&character=<id>]`, default cleo: the page lends that villager's
// session over /characters/<id>, which the demo server proxies to a gateway started with --mcp,
// whose MCP clients then drive it), or the gateway's model (`?agent=model`: the same lending, to a
// gateway started as `aicc gateway model`). The demo server adds the gateway key, so it never reaches this
// page. The arrow keys move the blue square.
// `?characters=N` (default 6, at most 100), `?inspector=0`, `?seed=S`, `?renderer=webgl`.
//
// The inspector is mounted once, on the scene's plugin (`this.aicc`), so it follows the scene into
// each restart with its dock, filters and open state. It opens docked on the right and the game
// scales to fit the room beside it (index.html reads the room the inspector publishes); closed, the
// game takes the whole width again. What goes wrong (pi or the gateway unreachable, an error) is
// said on the page, over the game.
//
// The page draws with Canvas 2D unless asked for WebGL: a few dozen shapes need no GPU, and where
// WebGL is emulated in software (headless Chromium, the browser tests and the frame benchmark) it
// runs the page at a few frames a second instead of 60, each frame then holding many frames' worth
// of game time.
//
// `window.aiccDemo` is what the browser tests and the benchmark read (see the #6 contract).

import Phaser from 'phaser';
import { AgentClient } from '../../src/agent/agentClient.js';
import { connectInProcess } from '../../src/agent/inProcess.js';
import { SeededRandom } from '../../src/adapters/headless/random.js';
import { aiccScenePlugin, type FrameStats } from '../../src/adapters/phaser/index.js';
import { mountInspector } from '../../src/inspector/index.js';
import { objectCodec } from '../../src/protocol/objectCodec.js';
import { createMemoryLinkPair } from '../../src/links/memory.js';
import { demoParams, lendOnPage, okCalls, pageErrors, pilotOnPage, type AiccDemo } from '../shared/page.js';
import { Forager } from './forager.js';
import { pageStatus } from '../shared/status.js';
import { HEIGHT, villageBubbles, villageScene, WIDTH, type VillageScene } from './village.js';

declare global {
  interface Window {
    aiccDemo?: AiccDemo & { frameStats(): FrameStats };
  }
}

/** Every fifth villager is a gardener: it may plant apples (the `conjure` capability). */
const GARDENER_EVERY = 5;

const { errors, report } = pageErrors();
const { agent: agentKind, ids, seed, inspector, character: lent, params } = demoParams({ characters: 6, seed: 'village' });
const random = new SeededRandom(seed);
/** The scene's next starts find the inspector already following the plugin. */
let inspectorMounted = false;
document.getElementById('who')!.textContent =
  agentKind === 'pi'
    ? `pi drives ${ids[0]}, scripts the rest`
    : agentKind === 'mcp'
      ? `an MCP client drives ${lent}, scripts the rest`
      : agentKind === 'model'
        ? `the gateway's model drives ${lent}, scripts the rest`
        : 'scripted';

const game = new Phaser.Game({
  type: params.get('renderer') === 'webgl' ? Phaser.WEBGL : Phaser.CANVAS,
  parent: 'game',
  width: WIDTH,
  height: HEIGHT,
  backgroundColor: '#7cb66a',
  // The game scales to the room #game has: beside the inspector while it is open.
  scale: { mode: Phaser.Scale.FIT, autoCenter: Phaser.Scale.CENTER_HORIZONTALLY },
  physics: { default: 'arcade', arcade: { gravity: { x: 0, y: 0 } } },
  // perceptionRadius: how far villagers see and hear, px; bubbles small in a crowd.
  plugins: {
    scene: [{ key: 'AiccScenePlugin', plugin: aiccScenePlugin({ perceptionRadius: 220, bubbles: villageBubbles(ids.length) }), mapping: 'aicc' }],
  },
  scene: villageScene({ villagers: ids, random, ready: (scene) => void connectAgents(scene).catch(report) }),
});

// #game changes size when the inspector opens, closes or moves (the room it takes): scale to it at
// once. Phaser's own check, every half second, misses a change made while it was scaling (its
// refresh reads the parent's size after scaling); so read the size, then scale, as its check does.
new ResizeObserver(() => {
  if (!game.isBooted) return;
  game.scale.getParentBounds();
  game.scale.refresh();
}).observe(document.getElementById('game')!);

async function connectAgents(scene: VillageScene): Promise<void> {
  const plugin = scene.aicc;
  const capsule = plugin.capsule;
  const calls = okCalls(capsule, errors);
  // Once, on the plugin: it moves to the capsule of each later start by itself.
  if (inspector && !inspectorMounted) {
    mountInspector(plugin, { parent: document.body, dock: 'right' });
    inspectorMounted = true;
  }

  window.aiccDemo = {
    ready: false,
    agent: agentKind,
    capsule,
    characters: () =>
      ids.map((id) => {
        const object = plugin.entities.get(id)?.object;
        return { id, x: object?.x ?? Number.NaN, y: object?.y ?? Number.NaN };
      }),
    calls,
    errors,
    frameStats: () => plugin.frameStats(),
    restart: () => scene.scene.restart(),
  };

  const lends = agentKind === 'mcp' || agentKind === 'model';
  if (lends && !ids.includes(lent))
    throw new Error(`?character=${lent.slice(0, 40)} is not one of this page's villagers: ${ids.slice(0, 8).join(', ')}${ids.length > 8 ? ', …' : ''}`);
  await Promise.all(
    ids.map(async (id, i) => {
      const piDriven = agentKind === 'pi' && i === 0;
      const gardener = i % GARDENER_EVERY === GARDENER_EVERY - 1;
      const capabilities = { sensors: ['sight'], actuators: ['legs', 'voice', 'body'], generators: gardener ? ['conjure'] : [] };
      if (piDriven) {
        // pi thinks in wall time: its agent keeps wall time, and is sent news less often.
        const [gameSide, agentSide] = createMemoryLinkPair();
        const connecting = AgentClient.connect(agentSide, { codec: objectCodec });
        plugin.connect(gameSide, { character: id, capabilities, codec: objectCodec, agentModel: { class: 'cloud_large' } });
        await pilotFor(await connecting, id);
        return;
      }
      if (lends && id === lent) {
        // The capsule stays the bridge end; the gateway takes the agent's end for its MCP clients or its model.
        const session = plugin.connect(await lendOnPage(id), { character: id, capabilities, agentModel: { class: 'cloud_large' } });
        // The gateway's refusals (a wrong key, the character already lent) end the session: say why.
        capsule.on('session', (change) => {
          if (change.session !== session) return;
          const lent = change.change === 'open' || change.change === 'resumed';
          const text = `${id} is no longer lent to the gateway (${change.change}): ${change.reason}`;
          pageStatus(`${agentKind}: ${id}`, lent ? undefined : text);
          if (!lent) console.warn(`aicc demo: ${text}`);
        });
        return;
      }
      // Scripted agents share the capsule's clock (scene time: a hidden, paused page pauses both
      // sides alike) and take the capsule's messages as they are, a delivery at a time
      // (connectInProcess). They act on ticks, state changes and words; contacts they learn from
      // their walks' ends.
      const client = await connectInProcess(plugin, {
        character: id,
        capabilities,
        agentModel: { class: 'edge_small' },
        subscriptions: ['tick', 'state_change', 'agent_message'],
      });
      new Forager(client, id, random.fork(id), gardener);
    }),
  );
  window.aiccDemo.ready = true;
}

/** pi drives this villager: pi-peers over a WebSocket to this page's own origin at /pi. */
async function pilotFor(client: AgentClient, id: string): Promise<void> {
  await pilotOnPage(client, id, {
    page: { id: 'aicc-phaser-demo', label: 'The Village (Phaser demo)' },
    description: 'A villager on a green with fences, two ponds, apples in the grass, other villagers and a blue square the player moves.',
    goal: 'Gather apples (walk onto one to eat it), chat with the villagers you meet, and keep out of the ponds.',
  });
}
