// Sabaki's exchange with `tengen gtp`, driven through the real client
// library: @sabaki/gtp 3.0.0 (npm), the GTP layer of Sabaki. Its
// Controller spawns the engine and its ControllerStateTracker syncs the
// board the way Sabaki does (komi, boardsize, clear_board, plays, undo);
// analysis is stopped by sending the next command, as Sabaki does. The
// sequence follows ../shared/testdata/clients/sabaki-gtp-3.0.0-commands.txt.
//
//   node tests/clients/sabaki/check.mjs PATH/TO/tengen
//
// Prints one line per check; exits 1 on any mismatch, 0 with "SKIP: …"
// when @sabaki/gtp is not installed (npm install in this folder).

import {createRequire} from 'node:module'

const require = createRequire(import.meta.url)
let gtp
try {
  gtp = require('@sabaki/gtp')
} catch (err) {
  console.log('SKIP: @sabaki/gtp is not installed (run npm install in tests/clients/sabaki)')
  process.exit(0)
}
const {Controller, ControllerStateTracker} = gtp

const tengen = process.argv[2]
if (!tengen) {
  console.error('usage: node check.mjs PATH/TO/tengen')
  process.exit(2)
}

let failures = 0
let checks = 0
function check(what, ok, detail = '') {
  checks++
  if (!ok) failures++
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}${ok || !detail ? '' : ': ' + detail}`)
}

const COLS = 'ABCDEFGHJKLMNOPQRSTUVWXYZ'
function isVertex(v, size) {
  const m = /^([A-HJ-Z])(\d{1,2})$/i.exec(v)
  if (!m) return false
  const x = COLS.indexOf(m[1].toUpperCase())
  const y = +m[2]
  return x >= 0 && x < size && y >= 1 && y <= size
}
const isMove = (v, size) => v.toLowerCase() === 'pass' || isVertex(v, size)

// Sabaki's reading of an analysis line: "info move V visits N winrate W
// ... pv V V ..." repeated; kata-analyze may end with "ownership ...".
function parseInfo(line, size) {
  const out = []
  let ownership = null
  let text = line.trim()
  const own = text.indexOf(' ownership ')
  if (own >= 0) {
    ownership = text.slice(own + ' ownership '.length).trim().split(/\s+/).map(Number)
    text = text.slice(0, own)
  }
  for (const chunk of text.split(/\s*info\s+/).filter(Boolean)) {
    const [head, pv = ''] = chunk.split(/\s+pv\s+/)
    const words = head.trim().split(/\s+/)
    const fields = {}
    for (let i = 0; i + 1 < words.length; i += 2) fields[words[i]] = words[i + 1]
    const variation = pv.trim().split(/\s+/).filter(Boolean)
    out.push({
      move: fields.move,
      visits: +fields.visits,
      winrate: +fields.winrate,
      variation,
      ok:
        isMove(fields.move || '', size) &&
        Number.isInteger(+fields.visits) &&
        +fields.visits >= 0 &&
        Number.isFinite(+fields.winrate) &&
        variation.length > 0 &&
        variation.every(v => isMove(v, size))
    })
  }
  return {moves: out, ownership}
}

const controller = new Controller(tengen, ['gtp', '--size', '9', '--visits', '32', '--no-autosave'])
const tracker = new ControllerStateTracker(controller)
const stderr = []
controller.on('stderr', ({content}) => stderr.push(content))
controller.start()
const send = (name, ...args) => controller.sendCommand({name, args})

// Starts a streaming analysis, waits for its first info line, then stops
// it with `next` as Sabaki does; returns [info line, stream, next's reply].
async function analyse(name, args, next, size) {
  let first = null
  let gotInfo
  const info = new Promise(resolve => (gotInfo = resolve))
  const stream = controller.sendCommand({name, args}, ({line}) => {
    if (first == null && line.startsWith('info ')) {
      first = line
      gotInfo()
    }
  })
  const timeout = new Promise(resolve => setTimeout(resolve, 20000))
  await Promise.race([info, timeout])
  const stop = controller.sendCommand(next)
  const [s, n] = await Promise.all([stream, stop])
  return [first == null ? null : parseInfo(first, size), s, n]
}

async function main() {
  // Start-up queries.
  let r = await send('name')
  check('name is tengen', !r.error && r.content === 'tengen', JSON.stringify(r))
  r = await send('version')
  check('version answered', !r.error && r.content.length > 0, JSON.stringify(r))
  r = await send('protocol_version')
  check('protocol_version is 2', !r.error && r.content === '2', JSON.stringify(r))
  r = await send('list_commands')
  const listed = r.content.split('\n').map(x => x.trim())
  const needed = [
    'protocol_version', 'name', 'version', 'known_command', 'list_commands', 'quit',
    'boardsize', 'clear_board', 'komi', 'play', 'genmove', 'undo', 'showboard',
    'final_score', 'final_status_list', 'set_free_handicap', 'fixed_handicap',
    'time_settings', 'time_left', 'analyze', 'genmove_analyze', 'lz-analyze', 'kata-analyze'
  ]
  const missing = needed.filter(c => !listed.includes(c))
  check('list_commands has what Sabaki uses', !r.error && missing.length === 0, missing.join(' '))
  check('tracker knows undo', await tracker.knowsCommand('undo'))
  check('tracker knows analyze', await tracker.knowsCommand('analyze'))
  r = await controller.sendCommand({id: 7, name: 'known_command', args: ['genmove']})
  check('ids are echoed', r.id === 7 && r.content === 'true', JSON.stringify(r))

  // Board sync: komi, boardsize, clear_board, the moves.
  const E5 = {name: 'play', args: ['B', 'E5']}
  const C3 = {name: 'play', args: ['W', 'C3']}
  let synced = true
  try {
    await tracker.sync({komi: 6.5, boardsize: [9, 9], history: [E5, C3]})
  } catch (err) {
    synced = false
  }
  check('sync komi, boardsize, moves', synced)

  // Analysis, each stopped by the next command.
  for (const [name, args] of [
    ['analyze', ['B', '50']],
    ['lz-analyze', ['B', '50']],
    ['kata-analyze', ['B', '50']],
    ['kata-analyze', ['B', '50', 'ownership', 'true']],
    ['analyze', ['W', '50']]
  ]) {
    const what = `${name} ${args.join(' ')}`
    const [info, s, next] = await analyse(name, args, {name: 'protocol_version'}, 9)
    check(`${what}: streams info lines`, info != null && info.moves.length > 0)
    check(`${what}: moves, visits, winrate, pv parse`, info != null && info.moves.every(m => m.ok),
      JSON.stringify(info))
    if (args.includes('ownership')) {
      check(`${what}: 81 ownership values`,
        info != null && info.ownership != null && info.ownership.length === 81 &&
        info.ownership.every(x => Number.isFinite(x) && Math.abs(x) <= 1))
    }
    check(`${what}: the next command stops it`, !s.error && !next.error && next.content === '2')
  }

  // Engine moves: genmove_analyze (Sabaki reads its "play V" line), genmove.
  let played = null
  r = await controller.sendCommand({name: 'genmove_analyze', args: ['B', '50']}, ({line}) => {
    const m = /^play\s+(\S+)/.exec(line.trim())
    if (m) played = m[1]
  })
  check('genmove_analyze B: a play line', !r.error && played != null && isMove(played, 9),
    JSON.stringify(r))
  r = await send('genmove', 'W')
  check('genmove W: a move', !r.error && isMove(r.content, 9), JSON.stringify(r))
  check('tracker follows both engine moves', tracker.state.history.length === 4,
    JSON.stringify(tracker.state.history))
  r = await send('showboard')
  check('showboard', !r.error && r.content.split('\n').length >= 9, JSON.stringify(r))

  // Sabaki goes back one move and plays others: the tracker undoes
  // (it replays from clear_board instead when half the history changes).
  const kept = tracker.state.history.slice(0, 3)
  const sent = []
  const log = ({command}) => sent.push(command.name)
  controller.on('command-sent', log)
  synced = true
  try {
    await tracker.sync({
      komi: 6.5,
      boardsize: [9, 9],
      history: [...kept, {name: 'play', args: ['W', 'pass']}, {name: 'play', args: ['B', 'G3']}]
    })
  } catch (err) {
    synced = false
  }
  controller.off('command-sent', log)
  check('sync by undo', synced && sent.filter(x => x === 'undo').length === 1 &&
    !sent.includes('clear_board'), sent.join(' '))
  r = await send('play', 'W', 'G3')
  check('play on an occupied point is an error', r.error, JSON.stringify(r))
  r = await send('undo')
  const undone = !r.error && !(await send('undo')).error
  r = await send('play', 'B', 'G3')
  check('undo twice, then play where a stone was', undone && !r.error, JSON.stringify(r))

  // A new game from a setup: Sabaki plays setup stones as moves.
  synced = true
  try {
    await tracker.sync({
      komi: 0,
      boardsize: [9, 9],
      history: [{name: 'play', args: ['W', 'D5']}, {name: 'play', args: ['W', 'E5']},
        {name: 'play', args: ['B', 'E4']}]
    })
  } catch (err) {
    synced = false
  }
  check('sync a setup', synced)

  // 19×19 with handicap, engine move and analysis there.
  synced = true
  try {
    await tracker.sync({
      komi: 0.5,
      boardsize: [19, 19],
      history: [{name: 'set_free_handicap', args: ['D4', 'Q16']}]
    })
  } catch (err) {
    synced = false
  }
  check('sync 19x19 with handicap', synced)
  played = null
  r = await controller.sendCommand({name: 'genmove_analyze', args: ['W', '50']}, ({line}) => {
    const m = /^play\s+(\S+)/.exec(line.trim())
    if (m) played = m[1]
  })
  check('genmove_analyze W on 19x19', !r.error && played != null && isMove(played, 19),
    JSON.stringify(r))
  {
    const [info, s, next] = await analyse('analyze', ['B', '50'], {name: 'protocol_version'}, 19)
    check('analyze on 19x19', info != null && info.moves.length > 0 && info.moves.every(m => m.ok) &&
      !s.error && next.content === '2', JSON.stringify(info))
  }

  // What tengen does not support is refused with "?", and the tracker says so.
  let refused = false
  try {
    await tracker.sync({komi: 0.5, boardsize: [9, 13], history: []})
  } catch (err) {
    refused = /Board size/.test(err.message)
  }
  check('rectangular_boardsize refused', refused)
  r = await send('boardsize', '25')
  check('boardsize 25 refused', r.error, JSON.stringify(r))
  r = await send('play', 'B', 'Z99')
  check('play B Z99 refused', r.error, JSON.stringify(r))
  r = await send('frobnicate')
  check('unknown command refused', r.error && r.content.length > 0, JSON.stringify(r))
  r = await send('boardsize', '9')
  r = await send('final_score')
  check('final_score parses', !r.error && /^(0|[BW]\+\d+(\.5)?)$/.test(r.content), JSON.stringify(r))

  // Quit while analysing: the engine ends on its own (stop() kills it
  // after 3 s otherwise).
  const analysis = controller.sendCommand({name: 'analyze', args: ['B', '50']}).catch(() => null)
  await new Promise(resolve => setTimeout(resolve, 500))
  const exited = new Promise(resolve => controller.process.once('exit', code => resolve(code)))
  const t0 = Date.now()
  await controller.stop()
  const code = await exited
  await analysis
  check('quit during analysis ends the engine', code === 0 && Date.now() - t0 < 3000,
    `exit ${code} after ${Date.now() - t0} ms`)
}

const timer = setTimeout(() => {
  console.log('FAIL: timed out')
  controller.kill()
  process.exit(1)
}, 120000)
main()
  .catch(err => {
    failures++
    console.log(`FAIL ${err.stack || err}`)
  })
  .finally(async () => {
    clearTimeout(timer)
    await controller.kill()
    if (failures > 0 && stderr.length) console.log('engine stderr:\n' + stderr.slice(-20).join('\n'))
    console.log(`sabaki: ${checks - failures} of ${checks} checks passed`)
    process.exit(failures === 0 ? 0 : 1)
  })
