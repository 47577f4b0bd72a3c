// A stand-in for `pi --mode rpc`, for host-mode tests: it speaks pi's RPC in the 0.73 dialect or the
// 1.x one (FAKE_PI_DIALECT=0.73|1.x), replies "reply to: <message>" after FAKE_PI_RUN_MS, and
// appends every command it reads to FAKE_PI_LOG (with its argv and environment first).
// The 1.x dialect does what pi 1.x does differently: agent_start before the prompt response,
// data.disposition, a system message pair in the first run, message_update deltas, agent_settled.
// The windows at a run's end (FAKE_PI_END_GAP, FAKE_PI_SETTLE_GAP) are held open by the test rather
// than timed: with `hold`, the fake logs that it is in the window and stays there until it gets
// SIGUSR2, so a test puts what it wants into the window and then shuts it, on a loaded machine too.

import { appendFileSync } from 'node:fs';

const dialect = process.env.FAKE_PI_DIALECT ?? '0.73';
const v1 = dialect === '1.x';
const runMs = Number(process.env.FAKE_PI_RUN_MS ?? 60);
const log = process.env.FAKE_PI_LOG;
// FAKE_PI_END_GAP=hold: the window between the run's last look at its queues and its agent_end.
const endGap = process.env.FAKE_PI_END_GAP === 'hold';
const lookEarly = process.env.FAKE_PI_LOOK_EARLY === '1';
// FAKE_PI_SETTLE_GAP=hold (1.x): the window between the run's last look at its queues and agent_settled.
const settleGap = process.env.FAKE_PI_SETTLE_GAP === 'hold';
if (process.env.FAKE_PI_FAIL_START) {
  process.stderr.write('fake pi: no model configured\n');
  process.exit(1);
}
if (log) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k === 'HOME' || k.startsWith('PI_') || k.startsWith('AICC_')));
  appendFileSync(log, `${JSON.stringify({ argv: process.argv.slice(2), env, cwd: process.cwd() })}\n`);
}

const out = (record) => process.stdout.write(`${JSON.stringify(record)}\n`);
const respond = (id, command, success, extra = {}) => out({ ...(id === undefined ? {} : { id }), type: 'response', command, success, ...extra });

/** What ends the window the run waits in; SIGUSR2 calls it. The first window only: later runs have none. */
let shut;
let windowShut = false;
process.on('SIGUSR2', () => {
  windowShut = true;
  if (log) appendFileSync(log, `${JSON.stringify({ fake: 'shut' })}\n`);
  const end = shut;
  shut = undefined;
  end?.();
});
/** Runs `then` once the test shuts the window (at once if it already has), logging `mark` as the window opens. */
function holdWindow(mark, then) {
  if (windowShut) return then();
  if (log) appendFileSync(log, `${JSON.stringify({ fake: mark })}\n`);
  shut = then;
}

let run; // { queue: string[], timer, looked }
/** Messages queued after the run's last look: like pi 0.73, the next run takes them in after its prompt. */
const stranded = [];
let runs = 0;
let lastText;

function startRun(message) {
  runs++;
  run = { queue: [...(message === undefined ? [] : [message]), ...stranded.splice(0)], timer: undefined, text: '' };
  out({ type: 'agent_start' });
  if (v1 && runs === 1) {
    out({ type: 'message_start', message: { role: 'system', content: 'session start' } });
    out({ type: 'message_end', message: { role: 'system', content: 'session start' } });
  }
  nextTurn();
}

function nextTurn() {
  const messages = run.queue.splice(0);
  out({ type: 'turn_start' });
  for (const text of messages) out({ type: 'message_end', message: { role: 'user', content: [{ type: 'text', text }] } });
  const reply = `reply to: ${messages.join(' + ')}`;
  out({ type: 'message_start', message: { role: 'assistant', content: [] } });
  run.timer = setTimeout(() => {
    const half = reply.slice(0, 5);
    // 0.73 repeats the whole partial message; 1.x sends the delta only.
    out({
      type: 'message_update',
      assistantMessageEvent: v1
        ? { type: 'text_delta', delta: half }
        : { type: 'text_delta', delta: half, partial: { role: 'assistant', content: [{ type: 'text', text: half }] } },
    });
    finishTurn(reply, 'stop');
  }, runMs);
}

function finishTurn(text, stopReason) {
  const message = { role: 'assistant', content: [{ type: 'text', text }], stopReason };
  lastText = text;
  const ends = () => {
    run = undefined;
    out({ type: 'agent_end', messages: [message] });
    // 1.x runs what was queued too late for the last run in a fresh one, before settling.
    if (v1 && stranded.length > 0 && stopReason === 'stop') return startRun(undefined);
    if (!v1) return;
    const settle = () => out({ type: 'agent_settled', aborted: stopReason === 'aborted' });
    if (!settleGap) return settle();
    holdWindow('settling', settle);
  };
  if (!endGap || stopReason !== 'stop') {
    out({ type: 'message_end', message });
    out({ type: 'turn_end', message });
    if (stopReason === 'stop' && run.queue.length > 0) return nextTurn();
    return ends();
  }
  // FAKE_PI_END_GAP: pi 0.73's window. It looks at its queue once after the final reply and ends
  // the run a while later; what is queued in between stays queued until the next prompt's run.
  // FAKE_PI_LOOK_EARLY=1 looks before the final message_end is out, so a client cannot see it coming.
  if (!lookEarly) {
    out({ type: 'message_end', message });
    out({ type: 'turn_end', message });
  }
  if (run.queue.length > 0) return nextTurn();
  run.looked = true;
  holdWindow('looked', () => {
    if (lookEarly) {
      out({ type: 'message_end', message });
      out({ type: 'turn_end', message });
    }
    ends();
  });
}

function handle(command) {
  const { id, type } = command;
  switch (type) {
    case 'get_state':
      return respond(id, type, true, { data: { sessionId: 'fake-session', isStreaming: run !== undefined, messageCount: 0 } });
    case 'prompt': {
      if (command.message === 'die') {
        process.stderr.write('fake pi: dying as asked\n');
        process.exit(3);
      }
      if (run !== undefined) {
        if (!command.streamingBehavior)
          return respond(id, type, false, { error: "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message." });
        (run.looked ? stranded : run.queue).push(command.message);
        return respond(id, type, true, v1 ? { data: { disposition: 'queued' } } : {});
      }
      if (v1) {
        startRun(command.message);
        return respond(id, type, true, { data: { disposition: 'started' } });
      }
      respond(id, type, true);
      return startRun(command.message);
    }
    case 'steer':
    case 'follow_up':
      // An idle pi (or one past its last look) keeps the message for the next prompt's run.
      (run !== undefined && !run.looked ? run.queue : stranded).push(command.message);
      return respond(id, type, true, v1 ? { data: { disposition: 'queued' } } : {});
    case 'abort':
      if (run !== undefined) {
        clearTimeout(run.timer);
        shut = undefined; // an abort in the window ends the run now, and the window with it
        finishTurn('partial', 'aborted');
      }
      return respond(id, type, true);
    case 'get_last_assistant_text':
      // Both 0.73.1 and 1.6.0 (observed) serialize an undefined text away: data is {}.
      return respond(id, type, true, { data: lastText === undefined ? {} : { text: lastText } });
    default:
      return respond(v1 ? id : undefined, type, false, { error: `Unknown command: ${type}` });
  }
}

let buffer = '';
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  for (let i = buffer.indexOf('\n'); i !== -1; i = buffer.indexOf('\n')) {
    const line = buffer.slice(0, i);
    buffer = buffer.slice(i + 1);
    if (log) appendFileSync(log, `${line}\n`);
    handle(JSON.parse(line));
  }
});
// Like pi: the end of stdin ends the process at once.
process.stdin.on('end', () => process.exit(0));
