// tests/e2e/trace_viewer.js: load a --format=json trace the way speedscope's
// trace-event importer does (1.25, src/import/chrome.ts: B/E/X events per
// thread, X split into B/E, ties by time kept in file order, an end matched
// to the open frame of its name) and check it against the "stackFrames" tree:
// at each sample's time the viewer's open stack, root first, is the sample's
// "sf" chain walked up through "parent" and reversed. Prints the first stack
// root first; with CALLER>CALLEE, some sample's stack must hold CALLER right
// above CALLEE. Usage: node trace_viewer.js TRACE.json [CALLER>CALLEE]
'use strict';
const fs = require('fs');

function fail(msg) { console.error('FAIL: ' + msg); process.exit(1); }

const trace = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
if (!Array.isArray(trace.traceEvents)) fail('no traceEvents array');
const frames = trace.stackFrames || {};

// the sf chain of a sample, root first (speedscope's walk of "parent")
function chain(sf) {
	const out = [], seen = new Set();
	for (let id = String(sf); id !== undefined && id !== 'undefined'; id = frames[id].parent) {
		if (!frames[id]) fail('stack frame ' + id + ' is not in stackFrames');
		if (seen.has(id)) fail('stack frame ' + id + ' is its own ancestor');
		seen.add(id);
		out.push(frames[id].name);
		if (frames[id].parent === undefined) break;
	}
	return out.reverse();
}

const byThread = new Map();
function thread(e) {
	const k = e.pid + ':' + e.tid;
	if (!byThread.has(k)) byThread.set(k, { edges: [], samples: [] });
	return byThread.get(k);
}
for (const e of trace.traceEvents) {
	if (e.ph === 'B' || e.ph === 'E' || e.ph === 'X') {
		if (typeof e.ts !== 'number') fail('an event without ts: ' + JSON.stringify(e));
		thread(e).edges.push(e);
	} else if (e.ph === 'i' && e.sf !== undefined && e.cat === 'sample') {
		thread(e).samples.push(e);
	}
}

function key(e) { return (e.name || '(unnamed)') + (e.args ? ' ' + JSON.stringify(e.args) : ''); }

const calls = process.argv[3] ? process.argv[3].split('>') : null;
let checked = 0, first = null, called = false;
for (const [k, t] of byThread) {
	// speedscope's partition: B (and X as B, longest first on ties), E
	const begins = [], ends = [], xs = [];
	for (const e of t.edges) (e.ph === 'B' ? begins : e.ph === 'E' ? ends : xs).push(e);
	const dur = e => e.dur ?? e.tdur ?? 0;
	xs.sort((a, b) => a.ts - b.ts || dur(b) - dur(a));
	for (const e of xs) {
		begins.push({ ...e, ph: 'B' });
		ends.push({ ...e, ph: 'E', ts: e.ts + dur(e) });
	}
	const byTs = (a, b) => a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0;
	begins.sort(byTs);   // stable: ties in file order
	ends.sort(byTs);
	const samples = t.samples.slice().sort(byTs);
	const stack = [];
	let si = 0;
	// before an event at time upto, everything up to a sample's time is in:
	// the viewer's stack (running time left out) is the sample's
	const check = upto => {
		for (; si < samples.length && samples[si].ts < upto; si++) {
			const want = chain(samples[si].sf);
			const got = stack.filter(e => e.cat !== 'sched').map(e => e.name);
			if (JSON.stringify(got) !== JSON.stringify(want))
				fail(k + ' at ts ' + samples[si].ts + ': the viewer shows\n  ' + got.join(' > ') +
				     '\nwhere the sample is\n  ' + want.join(' > '));
			if (!first) first = got;
			if (calls && got.some((n, i) => n === calls[0] && got[i + 1] === calls[1]))
				called = true;
			checked++;
		}
	};
	while (begins.length || ends.length) {
		let next;
		if (!ends.length) next = 'B';
		else if (!begins.length) next = 'E';
		else next = begins[0].ts < ends[0].ts ? 'B' : ends[0].ts < begins[0].ts ? 'E'
			: key(begins[0]) === key(ends[0]) ? 'B' : 'E';
		check(next === 'B' ? begins[0].ts : ends[0].ts);
		if (next === 'B') {
			stack.push(begins.shift());
			continue;
		}
		// an end: prefer one of the same time that closes the top frame
		const top = stack[stack.length - 1];
		if (top) {
			let j = ends.findIndex((e, i) => i > 0 && e.ts === ends[0].ts && key(e) === key(top));
			if (j < 0) j = ends.findIndex((e, i) => i > 0 && e.ts === ends[0].ts && e.name === top.name);
			if (j > 0) [ends[0], ends[j]] = [ends[j], ends[0]];
		}
		const e = ends.shift();
		if (!top) fail(k + ': an end of ' + e.name + ' at ' + e.ts + ' with nothing open');
		if (e.name !== top.name)
			fail(k + ' at ts ' + e.ts + ': the end of ' + e.name + ' while ' + top.name + ' is on top');
		stack.pop();
	}
	check(Infinity);
	if (stack.length) fail(k + ': ' + stack.length + ' frames still open at the end');
}
if (!checked) fail('no sample with a stack was checked');
if (calls && !called) fail('no stack has ' + calls[0] + ' calling ' + calls[1]);
console.log('ok: ' + checked + ' samples load as their stackFrames chain, root first; the first: ' +
	    first.join(' > '));
