// Kiln's web page. Every string from the server reaches the page as text (textContent, never
// as HTML), so a document holding markup is shown as markup, not run; the server's
// Content-Security-Policy forbids inline script besides. The API key lives in sessionStorage only.
'use strict';

(function () {
  const KEY_ITEM = 'kiln.apiKey';
  const $ = (id) => document.getElementById(id);

  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) {
      e.textContent = String(text);
    }
    if (cls) {
      e.className = cls;
    }
    return e;
  }

  function clear(node) {
    while (node.firstChild) {
      node.removeChild(node.firstChild);
    }
  }

  function showError(message) {
    const box = $('error');
    box.textContent = message;
    box.hidden = !message;
  }

  async function api(path, params) {
    const url = new URL(path, window.location.origin);
    if (params) {
      for (const [name, value] of params) {
        url.searchParams.append(name, value);
      }
    }
    const headers = { Accept: 'application/json' };
    const key = sessionStorage.getItem(KEY_ITEM);
    if (key) {
      headers.Authorization = 'Bearer ' + key;
    }
    const response = await fetch(url, { headers: headers, credentials: 'omit' });
    let body;
    try {
      body = await response.json();
    } catch (e) {
      throw new Error(path + ': HTTP ' + response.status + ' without a JSON body');
    }
    if (!response.ok) {
      throw new Error(path + ': HTTP ' + response.status + ': ' + (body && body.error ? body.error : ''));
    }
    return body;
  }

  function fmt(x) {
    return typeof x === 'number' ? (Number.isInteger(x) ? String(x) : x.toFixed(4)) : (x === null || x === undefined ? '–' : String(x));
  }

  // ---- snapshots and manifests

  async function loadSnapshots() {
    const body = await api('/snapshots');
    const tbody = $('snapshots').tBodies[0];
    clear(tbody);
    const selects = [$('snapshot-a'), $('snapshot-b')];
    const kept = selects.map((s) => s.value);
    selects.forEach(clear);
    for (const s of body.snapshots) {
      const row = el('tr');
      row.dataset.snapshot = s.id;
      row.appendChild(el('td', s.id));
      row.appendChild(el('td', s.created));
      row.appendChild(el('td', fmt(s.chunks)));
      row.appendChild(el('td', s.error ? s.error : fmt(s.quarantined)));
      row.appendChild(el('td', s.current ? 'CURRENT' : '', s.current ? 'current' : ''));
      const cell = el('td');
      const button = el('button', 'manifest');
      button.type = 'button';
      button.className = 'show-manifest';
      button.addEventListener('click', () => run(() => loadManifest(s.id)));
      cell.appendChild(button);
      row.appendChild(cell);
      tbody.appendChild(row);
      for (const select of selects) {
        const option = el('option', s.id + (s.current ? ' (CURRENT)' : ''));
        option.value = s.id;
        select.appendChild(option);
      }
    }
    selects.forEach((select, i) => {
      if (kept[i] && body.snapshots.some((s) => s.id === kept[i])) {
        select.value = kept[i];
      }
    });
    // By default compare CURRENT with the snapshot before it: what the last rebuild changed.
    if (!kept[1] && body.snapshots.length > 1) {
      const currentIndex = Math.max(0, body.snapshots.findIndex((s) => s.current));
      const other = body.snapshots[currentIndex + 1] || body.snapshots[0];
      $('snapshot-b').value = other.id;
      $('snapshot-a').value = body.snapshots[currentIndex].id;
    }
  }

  function fillTable(table, entries) {
    const tbody = table.tBodies[0];
    clear(tbody);
    if (entries.length === 0) {
      const row = el('tr');
      row.appendChild(el('td', 'none'));
      tbody.appendChild(row);
    }
    for (const [name, value] of entries) {
      const row = el('tr');
      row.appendChild(el('th', name));
      row.appendChild(el('td', fmt(value)));
      tbody.appendChild(row);
    }
  }

  async function loadManifest(id) {
    const body = await api('/manifest', [['snapshot', id]]);
    const m = body.manifest;
    $('manifest-id').textContent = id + (body.current ? ' (CURRENT)' : '');
    fillTable($('counters'), Object.entries(m.counters || {}));
    const q = m.quarantine;
    fillTable($('quarantine'), q ? [['total', q.total]].concat(Object.entries(q.by_reason || {})) : []);
    $('manifest-json').textContent = JSON.stringify(m, null, 2);
    $('manifest-section').hidden = false;
  }

  // ---- queries

  function queryParams(snapshot) {
    const params = [['q', $('q').value], ['k', $('k').value || '10'], ['mode', $('mode').value]];
    for (const f of $('filter').value.split(',')) {
      if (f.trim()) {
        params.push(['filter', f.trim()]);
      }
    }
    if (snapshot) {
      params.push(['snapshot', snapshot]);
    }
    return params;
  }

  function scoreTable(scores) {
    const table = el('table', null, 'scores');
    const head = el('tr');
    const row = el('tr');
    for (const leg of ['bm25', 'dense', 'fused', 'rerank']) {
      head.appendChild(el('th', leg));
      const v = scores[leg];
      const text = v && typeof v === 'object' ? fmt(v.score) + ' (#' + v.rank + ')' : fmt(v);
      const cell = el('td', text);
      cell.dataset.leg = leg;
      row.appendChild(cell);
    }
    table.appendChild(head);
    table.appendChild(row);
    return table;
  }

  function renderHit(hit) {
    const li = el('li', null, hit.gate.kept ? 'hit kept' : 'hit dropped');
    li.dataset.chunk = hit.chunk_id;
    li.appendChild(el('h3', '#' + hit.rank + ' ' + (hit.title || hit.doc_id), 'title'));
    li.appendChild(el('div', hit.breadcrumb || '', 'breadcrumb'));
    li.appendChild(el('p', hit.text, 'text'));
    const meta = el('dl', null, 'metadata');
    for (const [k, v] of Object.entries(hit.metadata || {})) {
      meta.appendChild(el('dt', k));
      meta.appendChild(el('dd', v));
    }
    li.appendChild(meta);
    li.appendChild(scoreTable(hit.scores));
    li.appendChild(el('p', (hit.gate.kept ? 'kept: ' : 'dropped: ') + hit.gate.reason, 'gate'));
    return li;
  }

  async function search() {
    const body = await api('/explain', queryParams($('snapshot-a').value));
    const list = $('results');
    clear(list);
    body.results.forEach((hit) => list.appendChild(renderHit(hit)));
    $('summary').textContent = body.snapshot + ': ' + body.results.length + ' hits, ' + body.kept
        + ' kept by the gate' + (body.reason ? ' (' + body.reason + ')' : '');
  }

  // ---- comparison: what a rebuild changed for the same query

  function compareList(list, hits, otherRanks) {
    clear(list);
    for (const hit of hits) {
      const other = otherRanks.get(hit.chunk_id);
      let move;
      let cls;
      if (other === undefined) {
        move = 'only here';
        cls = 'new';
      } else if (other === hit.rank) {
        move = '=';
        cls = '';
      } else {
        move = (other > hit.rank ? '↑' : '↓') + Math.abs(other - hit.rank) + ' (was #' + other + ')';
        cls = other > hit.rank ? 'moved-up' : 'moved-down';
      }
      const li = el('li', null, cls);
      li.dataset.chunk = hit.chunk_id;
      li.appendChild(el('span', hit.chunk_id + ' ' + fmt(hit.score) + ' '));
      li.appendChild(el('span', move, 'move'));
      list.appendChild(li);
    }
  }

  async function compare() {
    const a = $('snapshot-a').value;
    const b = $('snapshot-b').value;
    const [ra, rb] = await Promise.all([api('/explain', queryParams(a)), api('/explain', queryParams(b))]);
    const ranks = (r) => new Map(r.results.map((h) => [h.chunk_id, h.rank]));
    const ranksA = ranks(ra);
    const ranksB = ranks(rb);
    const k = Number($('k').value || '10');
    const shared = ra.results.filter((h) => ranksB.has(h.chunk_id)).length;
    const moved = ra.results.filter((h) => ranksB.has(h.chunk_id) && ranksB.get(h.chunk_id) !== h.rank).length;
    $('overlap').textContent = 'overlap@' + k + ': ' + shared + '/' + k + ' (' + (shared / k).toFixed(2) + '), '
        + moved + ' moved, ' + (ra.results.length - shared) + ' only in ' + a + ', '
        + (rb.results.length - shared) + ' only in ' + b;
    $('compare-a-title').textContent = a;
    $('compare-b-title').textContent = b;
    compareList($('compare-a'), ra.results, ranksB);
    compareList($('compare-b'), rb.results, ranksA);
  }

  async function run(task) {
    showError('');
    try {
      await task();
    } catch (e) {
      showError(e.message);
    }
  }

  document.addEventListener('DOMContentLoaded', () => {
    $('api-key').value = sessionStorage.getItem(KEY_ITEM) || '';
    $('key-form').addEventListener('submit', (e) => {
      e.preventDefault();
      sessionStorage.setItem(KEY_ITEM, $('api-key').value.trim());
      run(loadSnapshots);
    });
    $('refresh').addEventListener('click', () => run(loadSnapshots));
    $('query-form').addEventListener('submit', (e) => {
      e.preventDefault();
      run(search);
    });
    $('compare-form').addEventListener('submit', (e) => {
      e.preventDefault();
      run(compare);
    });
    run(loadSnapshots);
  });
})();
