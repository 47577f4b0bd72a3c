// The page of script.html, from plain <script> tags (a file of its own, not inline: the page runs
// under Content-Security-Policy: script-src 'self'). The same contract as index.html
// (window.aiccDemo), with scripted agents only: the pilot for pi is not part of the AICC global.
// ?characters=N (default 4), ?inspector=0, ?renderer=webgl (Canvas 2D by default, as on index.html).
// The inspector is mounted once, on the scene's plugin, docked on the right; the game scales to
// the room beside it (script.html). An error is said on the page (#status) as well as kept.
'use strict';
const errors = [];
function report(message) {
  errors.push(message);
  const status = document.getElementById('status');
  const line = document.createElement('div');
  line.textContent = message;
  status.append(line);
  status.hidden = false;
}
window.addEventListener('error', (event) => report(String(event.message)));
window.addEventListener('unhandledrejection', (event) => report(String((event.reason && event.reason.message) || event.reason)));

const params = new URLSearchParams(location.search);
const count = Math.max(1, Math.min(100, Number.parseInt(params.get('characters') || '4', 10) || 4));
const ids = Array.from({ length: count }, (_, i) => ['ada', 'bram', 'cleo', 'dov'][i] || 'villager_' + (i + 1));
const WIDTH = 640;
const HEIGHT = 480;

/** A wanderer: looks around, greets whoever is close, walks somewhere new when its walk ends. */
class Wanderer extends AICC.ScriptedAgent {
  constructor(client, id, seed) {
    super(client);
    this.id = id;
    this.seed = seed;
    this.pace = 10; // a decision a second when nothing happens
    this.walking = false;
    this.lastSpoke = -Infinity;
  }
  random() {
    // A small deterministic generator (mulberry32), one stream per agent.
    let t = (this.seed += 0x6d2b79f5);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  async decide(news) {
    for (const event of news) {
      if (event.topic === 'state_change' && event.payload.entity === this.id && event.payload.field === 'moving') this.walking = false;
    }
    const look = await this.call('nearby', { radius: 120 });
    if (!look.ok) return;
    const friend = look.output.objects.find((seen) => seen.role === 'character' && seen.visible && seen.distance < 70);
    if (friend && this.tick - this.lastSpoke > 60) {
      const said = await this.call('say', { text: 'Hello, ' + friend.id + '!', to: friend.id });
      if (said.ok) this.lastSpoke = this.tick;
      return;
    }
    if (this.walking) return;
    const moved = await this.call('move_to', { x: Math.round(40 + this.random() * (WIDTH - 80)), y: Math.round(40 + this.random() * (HEIGHT - 80)) });
    this.walking = moved.ok;
  }
}

let player;
let cursors;
let inspector;
const scene = {
  key: 'plain',
  create() {
    const aicc = this.aicc;
    const g = this.make.graphics({ x: 0, y: 0 }, false);
    g.fillStyle(0xf3a712, 1).fillCircle(10, 10, 9).generateTexture('villager', 20, 20).clear();
    g.fillStyle(0x1f5fd6, 1).fillRect(0, 0, 20, 20).generateTexture('player', 20, 20).clear();
    g.fillStyle(0x8d6e4a, 1).fillRect(0, 0, 8, 8).generateTexture('fence', 8, 8);
    g.destroy();
    this.add.rectangle(WIDTH / 2, HEIGHT / 2, WIDTH, HEIGHT, 0x7cb66a);

    const walls = this.physics.add.staticGroup();
    const fence = walls.create(WIDTH / 2, 150, 'fence').setDisplaySize(260, 12).refreshBody();
    aicc.addObstacle(fence, { kind: 'fence' });
    player = this.physics.add.sprite(WIDTH / 2, HEIGHT - 60, 'player').setCollideWorldBounds(true);
    aicc.addObject('player', player, { kind: 'player' });
    const villagers = this.physics.add.group();
    ids.forEach((id, i) => {
      const body = villagers.create(80 + ((i * 137) % (WIDTH - 160)), 240 + ((i * 71) % 160), 'villager').setCollideWorldBounds(true);
      aicc.addCharacter(id, body, { kind: 'villager', speed: 80 });
    });
    aicc.collider(villagers, walls);
    aicc.collider(player, walls);
    aicc.registerTools({ only: ['position', 'nearby', 'move_to', 'say'] });
    cursors = this.input.keyboard && this.input.keyboard.createCursorKeys();
    connect(aicc).catch((error) => report(String((error && error.message) || error)));
  },
  update() {
    if (!player || !cursors) return;
    const x = (cursors.left.isDown ? -1 : 0) + (cursors.right.isDown ? 1 : 0);
    const y = (cursors.up.isDown ? -1 : 0) + (cursors.down.isDown ? 1 : 0);
    player.setVelocity(x * 160, y * 160);
  },
};

async function connect(aicc) {
  const capsule = aicc.capsule;
  let callsOk = 0;
  capsule.on('call', (record) => {
    if (record.result.ok) callsOk++;
  });
  capsule.on('error', (error) => report('capsule: ' + error.message));
  // Once, on the plugin (this.aicc): it follows the scene into each restart, in the same place.
  if (params.get('inspector') !== '0' && inspector === undefined) inspector = AICCInspector.mountInspector(aicc, { parent: document.body, dock: 'right' });
  window.aiccDemo = {
    ready: false,
    agent: 'scripted',
    capsule,
    characters: () => ids.map((id) => {
      const entity = aicc.entities.get(id);
      return { id, x: entity ? entity.object.x : NaN, y: entity ? entity.object.y : NaN };
    }),
    calls: () => callsOk,
    errors,
    frameStats: () => aicc.frameStats(),
  };
  await Promise.all(ids.map(async (id, i) => {
    const [gameSide, agentSide] = AICC.createMemoryLinkPair();
    const connecting = AICC.AgentClient.connect(agentSide, { codec: AICC.objectCodec, clock: capsule.clock });
    aicc.connect(gameSide, { character: id, codec: AICC.objectCodec, capabilities: { sensors: ['sight'], actuators: ['legs', 'voice'] }, agentModel: { class: 'edge_small' } });
    new Wanderer(await connecting, id, 1000 + i);
  }));
  window.aiccDemo.ready = true;
}

const game = new Phaser.Game({
  type: params.get('renderer') === 'webgl' ? Phaser.WEBGL : Phaser.CANVAS,
  parent: 'game',
  width: WIDTH,
  height: HEIGHT,
  scale: { mode: Phaser.Scale.FIT, autoCenter: Phaser.Scale.CENTER_HORIZONTALLY },
  physics: { default: 'arcade', arcade: { gravity: { x: 0, y: 0 } } },
  plugins: { scene: [{ key: 'AiccScenePlugin', plugin: AICCPhaser.aiccScenePlugin({ perceptionRadius: 200 }), mapping: 'aicc' }] },
  scene,
});
// #game changes size when the inspector opens, closes or moves: scale the game to it at once
// (the parent's size read first: Phaser's refresh alone scales to the size it read last).
new ResizeObserver(() => {
  if (!game.isBooted) return;
  game.scale.getParentBounds();
  game.scale.refresh();
}).observe(document.getElementById('game'));
