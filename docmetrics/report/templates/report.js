/* docmetrics report: draws the views from the page's embedded data.  Every text from the data goes
   into the page as a text node (never as markup); charts are SVG built element by element. */
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("docmetrics-data").textContent);
  var SVGNS = "http://www.w3.org/2000/svg";

  // -- building elements ----------------------------------------------------------------------------
  function add(el, kids) {
    for (var i = 0; i < kids.length; i++) {
      var k = kids[i];
      if (k === null || k === undefined || k === false) continue;
      if (Array.isArray(k)) add(el, k);
      else el.appendChild(typeof k === "object" ? k : document.createTextNode(String(k)));
    }
    return el;
  }
  function attrs(el, a) {
    for (var key in a) {
      if (!Object.prototype.hasOwnProperty.call(a, key) || a[key] === null || a[key] === undefined || a[key] === false) continue;
      var v = a[key];
      if (key.slice(0, 2) === "on" && typeof v === "function") el.addEventListener(key.slice(2), v);
      else if (key === "text") el.textContent = String(v);
      else el.setAttribute(key, v === true ? "" : String(v));
    }
    return el;
  }
  function h(tag, a) { return add(attrs(document.createElement(tag), a || {}), [].slice.call(arguments, 2)); }
  function s(tag, a) { return add(attrs(document.createElementNS(SVGNS, tag), a || {}), [].slice.call(arguments, 2)); }
  function clear(el) { while (el.firstChild) el.removeChild(el.firstChild); return el; }
  function body(view) { return document.querySelector("#" + view + " .body"); }

  // -- numbers ---------------------------------------------------------------------------------------
  function isNum(x) { return typeof x === "number" && isFinite(x); }
  function fmt(x, d) {
    if (!isNum(x)) return "\u2013";
    if (d === undefined) d = Math.abs(x) >= 10 ? 2 : 4;
    return x.toFixed(d);
  }
  function fmtP(p) { return isNum(p) ? (p < 0.001 ? p.toExponential(1) : p.toFixed(4)) : "\u2013"; }
  function mean(xs) {
    var t = 0, n = 0;
    for (var i = 0; i < xs.length; i++) if (isNum(xs[i])) { t += xs[i]; n++; }
    return n ? t / n : null;
  }
  function tau(a, b) { // Kendall's tau-a over the pairs where both are numbers
    var c = 0, n = 0;
    for (var i = 0; i < a.length; i++) for (var j = i + 1; j < a.length; j++) {
      if (!isNum(a[i]) || !isNum(a[j]) || !isNum(b[i]) || !isNum(b[j])) continue;
      n++; c += Math.sign(a[i] - a[j]) * Math.sign(b[i] - b[j]);
    }
    return n ? c / n : null;
  }

  // -- the model: results, judging outputs, texts ---------------------------------------------------
  var M = { results: [], specs: [], systems: [], docs: [], paired: [], metaeval: [], errorFree: [], mtme: [], averages: [],
            sweeps: [], alignments: [], spanF1: [], texts: D.texts || null, human: D.human || null, spans: D.spans || null };
  var byKey = {};
  function columnar(units, docs) {
    var idx = {}, out = { doc: [], start: [], end: [], score: [] }, extra = ["weight", "group", "truncated", "partial", "spans", "answer"];
    docs.forEach(function (d, k) { if (!(d[0] in idx)) idx[d[0]] = k; });
    units.forEach(function (u) {
      if (!(u.doc_id in idx)) { idx[u.doc_id] = docs.length; docs.push([u.doc_id, null, 0]); }
      out.doc.push(idx[u.doc_id]); out.start.push(u.start); out.end.push(u.end); out.score.push(u.score);
    });
    extra.forEach(function (k) { if (units.some(function (u) { return u[k] !== undefined; })) out[k] = units.map(function (u) { return u[k] === undefined ? null : u[k]; }); });
    return out;
  }
  function addResult(r, compact) {
    var key = (r.spec || r.metric) + "\u0000" + r.system;
    var docs = compact ? (r.docs || []) : (r.docs || []).map(function (d) { return [d.doc_id, d.score, d.units]; });
    var units = compact ? (r.units || null) : (r.units ? columnar(r.units, docs) : null);
    var x = { system: r.system, metric: r.metric, spec: r.spec || r.metric, score: r.score, signature: r.signature,
              params: r.params, coverage: r.coverage, ci: r.ci || null, higher: r.higher_is_better !== false, detail: r.detail || null,
              docs: docs, units: units, hasDocs: !!(r.docs && r.docs.length) };
    var old = byKey[key];
    if (old) {
      if (!old.ci && x.ci) old.ci = x.ci;
      if (!old.hasDocs && x.hasDocs) { old.docs = x.docs; old.units = x.units; old.hasDocs = true; }
      if (!old.detail && x.detail) old.detail = x.detail;
      return;
    }
    byKey[key] = x; M.results.push(x);
  }
  (D.results || []).forEach(function (r) { addResult(r, true); });
  D.sources.forEach(function (src, i) {
    var d = src.data;
    if (src.layout === "scores") d.forEach(function (r) { addResult(r, false); });
    else if (src.layout === "paired") M.paired.push({ name: src.name, rows: d });
    else if (src.layout === "human") {  // --error-free: each metric's detection under error_free
      M.metaeval.push({ name: src.name, rows: d, source: i });
      M.errorFree.push({ name: src.name, source: i, rows: d.filter(function (r) { return r.error_free; }).map(function (r) { return r.error_free; }) });
    }
    else if (src.layout === "genmt") {  // the object --error-free -f json wrote before issue 37
      M.metaeval.push({ name: src.name, rows: d.metaeval, source: i }); M.errorFree.push({ name: src.name, source: i, rows: d.error_free || [] });
    }
    else if (src.layout === "mtme") M.mtme.push({ lp: d, source: i });
    else if (src.layout === "metaeval") { (d.lps || []).forEach(function (lp) { M.mtme.push({ lp: lp, source: i }); }); M.averages.push(d); }
    else if (src.layout === "sweep") M.sweeps.push(d);
    else if (src.layout === "alignment") M.alignments = M.alignments.concat(d);
    else if (src.layout === "spans") M.spanF1.push({ name: src.name, data: d });
  });
  (function () {
    var specs = {}, systems = {};
    function sys(n) { if (!(n in systems)) { systems[n] = 1; M.systems.push(n); } }
    function spec(name, metric, sig, higher) {
      if (!(name in specs)) { specs[name] = { spec: name, metric: metric, signature: sig, higher: higher, bySystem: {} }; M.specs.push(specs[name]); }
      return specs[name];
    }
    M.results.forEach(function (r) { sys(r.system); spec(r.spec, r.metric, r.signature, r.higher).bySystem[r.system] = r; });
    M.paired.forEach(function (p) { p.rows.forEach(function (r) { sys(r.system); spec(r.spec, r.metric, r.signature, true); }); });
    if (M.texts) Object.keys(M.texts.systems || {}).forEach(sys);
    M.specOf = specs;
    var seen = {};
    function doc(id, start, end) { if (!(id in seen)) { seen[id] = M.docs.length; M.docs.push({ id: id, start: start, end: end }); } }
    if (M.texts) M.texts.documents.forEach(function (d) { doc(d[0], d[1], d[2]); });
    M.results.forEach(function (r) { r.docs.forEach(function (d) { doc(d[0], null, null); }); });
    M.alignments.forEach(function (a) { doc(a.doc_id, null, null); });
    M.docIndex = seen;
    M.results.forEach(function (r) {
      r.byDoc = new Array(M.docs.length).fill(null);
      r.docs.forEach(function (d) { var k = seen[d[0]]; if (r.byDoc[k] === null) r.byDoc[k] = { score: d[1], units: d[2] }; });
    });
  })();
  var docSpecs = M.specs.filter(function (sp) { return M.results.some(function (r) { return r.spec === sp.spec && r.hasDocs; }); });
  function docScore(spec, system, k) {
    var r = M.specOf[spec] && M.specOf[spec].bySystem[system];
    return r && r.byDoc[k] ? r.byDoc[k].score : null;
  }
  function humanSystem(name) {
    if (!M.human || !M.human.segments) return null;
    var seg = M.human.segments;
    if (name in seg) return seg[name];
    var stem = name.replace(/\.[^.\/]*$/, "");
    return stem in seg ? seg[stem] : null;
  }
  var humanDocCache = {};
  function humanDoc(system, k) {
    var key = system + "\u0000" + k;
    if (key in humanDocCache) return humanDocCache[key];
    var row = humanSystem(system), d = M.docs[k], v = null;
    if (row && d.start !== null) v = mean(row.slice(d.start, d.end));
    return (humanDocCache[key] = v);
  }
  var hasHuman = !!(M.human && M.human.segments);

  // -- state and routing -------------------------------------------------------------------------------
  var S = { spec: docSpecs.length ? docSpecs[0].spec : null, a: M.systems[0] || null, b: M.systems[1] || M.systems[0] || null,
            filter: "", picked: {}, doc: M.docs.length ? M.docs[0].id : null, chosen: firstTwo() };
  function firstTwo() { // the human ranking's first two systems with texts, else the first two
    var hr = D.human && D.human.ranking, out = [];
    if (hr && hr.systems) hr.systems.forEach(function (x) { if (out.length < 2 && M.systems.indexOf(x.system) >= 0) out.push(x.system); });
    return out.length === 2 ? out : M.systems.slice(0, 2);
  }
  var drawn = {};
  function route() {
    var hash = decodeURIComponent(location.hash.slice(1)), view = "overview";
    if (hash.slice(0, 4) === "doc=") { view = "document"; var id = hash.slice(4); if (id in M.docIndex) S.doc = id; drawn.document = false; }
    else if (document.getElementById(hash) && document.getElementById(hash).classList.contains("view")) view = hash;
    else if (hash) { var target = document.getElementById(hash); if (target) { var v = target.closest(".view"); if (v) view = v.id; } }
    document.querySelectorAll(".view").forEach(function (el) { el.classList.toggle("active", el.id === view); });
    document.querySelectorAll("nav a").forEach(function (a) {
      if (a.getAttribute("data-view") === view) a.setAttribute("aria-current", "page"); else a.removeAttribute("aria-current");
    });
    if (!drawn[view]) { VIEWS[view](clear(body(view))); drawn[view] = true; }
    return view;
  }
  function docLink(id, label) { return h("a", { href: "#doc=" + encodeURIComponent(id) }, label === undefined ? id : label); }

  // -- tables: sortable headers with aria-sort ---------------------------------------------------------
  /* cols: [{label, num, key(row) -> sortable value, cell(row) -> node or text, title(row) -> hover text}]; rows: data
     objects.  opts.page: rows per page (a pager below; else the first 500 rows and "show all"); opts.onSort(col, dir):
     told of each sort, so that a table drawn again keeps it. */
  function sortable(cols, rows, opts) {
    opts = opts || {};
    var state = { col: opts.sortCol === undefined ? -1 : opts.sortCol, dir: opts.sortDir || 1, page: 0 }, limit = opts.limit || 500, showAll = false;
    var caption = opts.caption ? h("caption", { class: "visually-hidden" }, opts.caption) : null;
    var thead = h("thead"), tbody = h("tbody"), table = h("table", { class: opts.cls || null }, caption, thead, tbody);
    var more = h("div", { class: "pager" });
    var ths = cols.map(function (c, i) {
      var th = h("th", { scope: "col", class: c.num ? "num" : null, title: c.label });
      if (c.key) {
        th.setAttribute("aria-sort", "none");
        th.appendChild(h("button", { type: "button", onclick: function () { sortBy(i); } }, c.label));
      } else th.appendChild(document.createTextNode(c.label));
      return th;
    });
    add(thead, [h("tr", null, ths)]);
    function sortBy(i) {
      state.dir = state.col === i ? -state.dir : (cols[i].num ? -1 : 1); state.col = i; state.page = 0; draw();
      if (opts.onSort) opts.onSort(i, state.dir);
    }
    function draw() {
      ths.forEach(function (th, i) {
        if (!cols[i].key) return;
        th.setAttribute("aria-sort", i === state.col ? (state.dir > 0 ? "ascending" : "descending") : "none");
      });
      var shown = rows.slice();
      if (state.col >= 0) {
        var key = cols[state.col].key, dir = state.dir, keys = new Map();
        shown.forEach(function (x) { keys.set(x, key(x)); });
        shown.sort(function (x, y) {
          var a = keys.get(x), b = keys.get(y);
          if (a === null || a === undefined || (typeof a === "number" && !isFinite(a))) return 1;
          if (b === null || b === undefined || (typeof b === "number" && !isFinite(b))) return -1;
          return (typeof a === "number" && typeof b === "number" ? a - b : String(a).localeCompare(String(b))) * dir;
        });
      }
      clear(tbody);
      var first = 0, n = showAll ? shown.length : Math.min(limit, shown.length);
      if (opts.page) {
        var pages = Math.max(1, Math.ceil(shown.length / opts.page));
        state.page = Math.max(0, Math.min(state.page, pages - 1));
        first = state.page * opts.page; n = Math.min(shown.length, first + opts.page);
      }
      var frag = document.createDocumentFragment();
      for (var r = first; r < n; r++) {
        var tr = h("tr", opts.rowAttrs ? opts.rowAttrs(shown[r]) : null);
        cols.forEach(function (c) { var v = c.cell(shown[r]); tr.appendChild(h(c.head ? "th" : "td", { class: c.num ? "num" : null, scope: c.head ? "row" : null, title: c.title ? c.title(shown[r]) : null }, v)); });
        frag.appendChild(tr);
      }
      tbody.appendChild(frag);
      clear(more);
      if (opts.page) {
        var go = function (p) { return function () { state.page = p; draw(); }; };
        if (shown.length > opts.page) add(more, [h("button", { type: "button", onclick: go(0), disabled: state.page === 0 }, "\u00ab first"),
          h("button", { type: "button", onclick: go(state.page - 1), disabled: state.page === 0 }, "\u2039 previous"),
          h("span", { class: "pages", role: "status" }, "rows " + (first + 1) + "\u2013" + n + " of " + shown.length + " (page " + (state.page + 1) + " of " + pages + ")"),
          h("button", { type: "button", onclick: go(state.page + 1), disabled: state.page >= pages - 1 }, "next \u203a"),
          h("button", { type: "button", onclick: go(pages - 1), disabled: state.page >= pages - 1 }, "last \u00bb")]);
        else add(more, [h("span", { class: "pages" }, shown.length + " row" + (shown.length === 1 ? "" : "s"))]);
      } else if (n < shown.length) add(more, [shown.length - n + " more rows ", h("button", { type: "button", onclick: function () { showAll = true; draw(); } }, "show all")]);
    }
    draw();
    return { el: opts.page ? h("div", { class: "paged" }, more, h("div", { class: "scroll box" }, table)) : h("div", { class: "scroll" }, table, more), table: table, redraw: function (newRows) { if (newRows) rows = newRows; draw(); } };
  }
  function plainTable(headers, rows, opts) {
    opts = opts || {};
    return h("div", { class: "scroll" }, h("table", { class: opts.cls || null },
      opts.caption ? h("caption", { class: "visually-hidden" }, opts.caption) : null,
      h("thead", null, h("tr", null, headers.map(function (x) { return h("th", { scope: "col" }, x); }))),
      h("tbody", null, rows.map(function (row, i) {
        return h("tr", opts.rowClass ? { class: opts.rowClass(i) } : null, row.map(function (c, j) {
          return h(j === 0 ? "th" : "td", { scope: j === 0 ? "row" : null, class: typeof c === "number" ? "num" : null }, typeof c === "number" ? fmt(c) : c);
        }));
      }))));
  }

  // -- Overview ------------------------------------------------------------------------------------
  function oriented(r, x) { return isNum(x) ? (r.higher ? x : -x) : null; }
  /* Clusters from confidence intervals: sorted best first, a system opens a new cluster where its interval
     lies wholly below the interval of the cluster's first system. */
  function ciClusters(rows) {
    var top = null, out = [];
    rows.forEach(function (r) {
      var lo = r.ci ? oriented(r, r.higher ? r.ci.low : r.ci.high) : null, hi = r.ci ? oriented(r, r.higher ? r.ci.high : r.ci.low) : null;
      var start = top === null || (hi !== null && top.lo !== null && hi < top.lo);
      if (start) top = { lo: lo };
      out.push(start);
    });
    return out;
  }
  // -- the systems in the human ranking's order, each metric's rank beside it --------------------------
  var KIND = { scores: "scores", paired: "paired tests", human: "meta-evaluation against human scores", genmt: "meta-evaluation against human scores",
               mtme: "MTME meta-evaluation", metaeval: "meta-evaluation", sweep: "sweep", spans: "span judging", alignment: "alignments", report: "report data" };
  /* A source's name is what was typed (a file); the command's own output has no file name (it is named in words by
     the command: not shown as if it were a file). */
  function fileName(src) { return /^this command's output/.test(src.name) ? null : src.name; }
  // "human ESA", "human mqm_score"; a column named only "score" or "human" says no more than "human"
  function humanKind() { var c = D.human && D.human.column; return c && !/^(human|scores?|human[ _]scores?)$/i.test(c) ? "human " + c : "human"; }
  /* The human ranking: the page's (human.ranking: clusters by a WMT rule), else the human system scores of the first
     meta-evaluation, with no clusters. */
  function humanRanking() {
    var given = D.human && D.human.ranking;
    if (given && given.systems && given.systems.length) return given;
    var row = M.metaeval.length && M.metaeval[0].rows[0], sys = null, hs = null, lower = !!(D.human && D.human.lower_is_better);
    if (row && row.systems) { sys = row.systems; hs = row.human_scores; }
    else if (M.mtme.length && M.mtme[0].lp.metrics && M.mtme[0].lp.metrics.length) { sys = M.mtme[0].lp.metrics[0].system.systems; hs = M.mtme[0].lp.metrics[0].system.human_scores; }
    if (!sys || !hs) return null;
    var out = sys.map(function (n, i) { return { system: n, score: hs[i], cluster: null }; }).filter(function (x) { return isNum(x.score); });
    out.sort(function (a, b) { return lower ? a.score - b.score : b.score - a.score; });
    return out.length ? { systems: out, rule: null, note: "no clusters in this report's data" } : null;
  }
  /* Each metric's score of each system: its results, else the system scores of its meta-evaluation row. */
  function metricColumns() {
    var cols = [], at = {};
    function col(spec, higher) { if (!(spec in at)) { at[spec] = cols.length; cols.push({ spec: spec, higher: higher, score: {} }); } return cols[at[spec]]; }
    M.specs.forEach(function (sp) { var c = col(sp.spec, sp.higher); Object.keys(sp.bySystem).forEach(function (n) { c.score[n] = sp.bySystem[n].score; }); });
    M.metaeval.forEach(function (g) { g.rows.forEach(function (r) {
      var c = col(r.spec || r.metric, r.higher_is_better !== false);
      (r.systems || []).forEach(function (n, i) { if (!(n in c.score) && isNum(r.metric_scores[i])) c.score[n] = r.metric_scores[i]; });
    }); });
    M.mtme.slice(0, 1).forEach(function (x) { (x.lp.metrics || []).forEach(function (e) {
      var c = col(e.metric, true);
      (e.system.systems || []).forEach(function (n, i) { if (!(n in c.score) && isNum(e.system.metric_scores[i])) c.score[n] = e.system.metric_scores[i]; });
    }); });
    return cols;
  }
  function ranksOf(names, value, higher) { // competition ranks (1 = best; ties share the better rank)
    var v = names.map(function (n) { var x = value(n); return isNum(x) ? (higher ? x : -x) : null; });
    return v.map(function (x) { return x === null ? null : 1 + v.filter(function (y) { return y !== null && y > x; }).length; });
  }
  function rankCell(rank, base, score) {
    if (rank === null) return h("td", { class: "num" }, "\u2013");
    var d = base === null || base === undefined ? 0 : base - rank;
    return h("td", { class: "num rankcell " + (d > 0 ? "up" : d < 0 ? "down" : "same"), title: d > 0 ? "ranked " + d + " place(s) higher than by the reference ranking" : d < 0 ? "ranked " + (-d) + " place(s) lower than by the reference ranking" : "the same rank" },
             h("span", { class: "rank" }, String(rank)), h("span", { class: "move" }, base === null || base === undefined ? "" : d > 0 ? "\u25b2" + d : d < 0 ? "\u25bc" + (-d) : "="), " ", h("span", { class: "val" }, fmt(score)));
  }
  function rankingView() {
    var hr = humanRanking(), cols = metricColumns(), box = h("div", { class: "ranking-view" });
    if (!cols.length && !hr) return null;
    var names, base, heads, lead = [];
    if (hr) {
      names = hr.systems.map(function (x) { return x.system; });
      base = hr.systems.map(function (_, i) { return i + 1; });
      heads = ["cluster", "rank", "system", humanKind()];
      add(box, [h("h3", null, "Systems in the human ranking's order" + (D.human && D.human.name ? " (" + D.human.name + ")" : ""))]);
    } else {
      var first = cols[0];
      names = Object.keys(first.score);
      M.systems.forEach(function (n) { cols.forEach(function (c) { if (n in c.score && names.indexOf(n) < 0) names.push(n); }); });
      names.sort(function (a, b) { var x = first.score[a], y = first.score[b]; if (!isNum(x)) return 1; if (!isNum(y)) return -1; return first.higher ? y - x : x - y; });
      base = ranksOf(names, function (n) { return first.score[n]; }, first.higher);
      heads = ["rank", "system"];
      add(box, [h("h3", null, "The metrics' rankings side by side (no human scores in this report)")]);
    }
    cols.forEach(function (c) { names.forEach(function (n) {  // a ranking that names a system by its file's stem
      if (!(n in c.score)) { var k = Object.keys(c.score).filter(function (m) { return m.replace(/^.*[\/\\]/, "").replace(/\.[^.]*$/, "") === n; }); if (k.length === 1) c.score[n] = c.score[k[0]]; }
    }); });
    var metricRanks = cols.map(function (c) { return ranksOf(names, function (n) { return c.score[n]; }, c.higher); });
    var rows = names.map(function (n, i) {
      var x = hr ? hr.systems[i] : null, cells = [];
      if (hr) cells.push(h("td", { class: "num cluster" }, x.cluster === null || x.cluster === undefined ? "\u2013" : String(x.cluster)));
      cells.push(h("td", { class: "num" }, String(base[i])), h("th", { scope: "row" }, n));
      if (hr) cells.push(h("td", { class: "num" }, fmt(x.score)));
      cols.forEach(function (c, j) { cells.push(rankCell(metricRanks[j][i], hr || j > 0 ? base[i] : null, c.score[n])); });
      var start = hr && i > 0 && x.cluster !== hr.systems[i - 1].cluster;
      return h("tr", { class: start ? "cluster-start" : null, "data-system": n }, cells);
    });
    add(box, [h("div", { class: "scroll" }, h("table", { class: "ranking" }, h("caption", { class: "visually-hidden" }, "Systems and each metric's rank"),
      h("thead", null, h("tr", null, heads.map(function (x) { return h("th", { scope: "col", class: x === "system" ? null : "num" }, x); }),
        cols.map(function (c) { return h("th", { scope: "col", class: "num metric" }, c.spec, h("span", { class: "sub" }, "rank, score")); }))),
      h("tbody", null, rows)))]);
    lead.push(hr ? "Rank: the place by the " + humanKind() + " scores (their mean per system)" + (hr.rule ? "; cluster: the " + hr.rule.toUpperCase() + " rule (" + hr.definition + "), double lines between clusters" : "; " + (hr.note || "no clusters")) + "."
                 : "Rank by " + cols[0].spec + " first.");
    lead.push("In each metric's column its rank and score; \u25b2n: the metric ranks the system n places higher than " + (hr ? "the humans do" : cols[0].spec + " does") + ", \u25bcn: lower, =: the same.");
    lead.forEach(function (x) { add(box, [h("p", { class: "note" }, x)]); });
    if (M.metaeval.length) {
      var g = M.metaeval[0], head = STAT_COLS.filter(function (c) { return ["pearson", "kendall", "accuracy", "spa", "seg_pearson"].indexOf(c[0]) >= 0; });
      add(box, [h("h3", null, "How each metric agrees with the " + humanKind() + " scores"), statTable(g.rows, head, function (r) { return r; }, "Meta-evaluation headline"), clustersNote(g.rows),
                h("p", null, "The whole meta-evaluation, the significance between metrics and the scatter plots: ", h("a", { href: "#judging" }, "Judging"), ".")]);
    }
    return box;
  }
  function overview(el) {
    var facts = [["docmetrics", D.docmetrics]];
    if (D.command) facts.push(["command", h("code", null, D.command)]);
    (D.inputs || []).forEach(function (x) { facts.push([x[0], h("code", null, x[1])]); });
    D.sources.forEach(function (x) { facts.push(["read", fileName(x) ? [h("code", null, x.name), " (" + KIND[x.layout] + ")"] : "the output of the command above (" + KIND[x.layout] + ")"]); });
    if (D.human && D.human.name) facts.push(["human scores", [h("code", null, D.human.name), D.human.column ? " (" + D.human.column + ")" : ""]]);
    add(el, [rankingView()]);
    add(el, [plainTable(["", "value"], facts, { caption: "What was run" })]);
    if (M.specs.length) {
      add(el, [h("h3", null, "Metrics and signatures")]);
      add(el, [plainTable(["spec", "metric", "signature", "coverage"], M.specs.map(function (sp) {
        var r0 = M.results.filter(function (r) { return r.spec === sp.spec; })[0], c = r0 && r0.coverage;
        return [h("code", null, sp.spec), sp.metric + (sp.higher ? "" : " (lower is better)"), h("span", { class: "sig" }, sp.signature || ""),
                c ? c.segments_scored + "/" + c.segments_total + " segments, " + c.units + " units" + (c.units_truncated ? ", " + c.units_truncated + " truncated" : "") : "\u2013"];
      }), { caption: "Metrics" })]);
    }
    M.specs.forEach(function (sp) {
      var pairedRows = [];
      M.paired.forEach(function (p) { p.rows.forEach(function (r) { if (r.spec === sp.spec) pairedRows.push(r); }); });
      var pBy = {}; pairedRows.forEach(function (r) { pBy[r.system] = r; });
      var rows = M.systems.map(function (name) {
        var r = sp.bySystem[name], p = pBy[name];
        if (!r && !p) return null;
        return { system: name, score: r ? r.score : p.score, ci: r ? r.ci : null, higher: sp.higher, p: p || null };
      }).filter(Boolean);
      if (!rows.length) return;
      rows.sort(function (x, y) { return oriented(y, y.score) - oriented(x, x.score); });
      var hasCi = rows.some(function (r) { return r.ci; }), starts = hasCi ? ciClusters(rows) : rows.map(function (_, i) { return i === 0; });
      var headers = ["system", "rank", "score"].concat(hasCi ? ["95% CI"] : []).concat(pairedRows.length ? ["bootstrap mean \u00b1", "p vs baseline", "significant"] : []);
      var rank = 0;
      var body = rows.map(function (r, i) {
        if (starts[i]) rank = i + 1;
        var row = [r.system + (r.p && r.p.baseline ? " (baseline)" : ""), hasCi ? String(rank) : String(i + 1), r.score];
        if (hasCi) row.push(r.ci ? "[" + fmt(r.ci.low) + ", " + fmt(r.ci.high) + "]" : "\u2013");
        if (pairedRows.length) row.push(r.p ? fmt(r.p.mean) + " \u00b1 " + fmt(r.p.ci) : "\u2013", r.p && !r.p.baseline ? fmtP(r.p.p_value) : "\u2013",
                                        r.p && !r.p.baseline ? (r.p.significant ? "yes (p < 0.05)" : "no") : "\u2013");
        return row;
      });
      add(el, [h("h3", { id: "sys-" + M.specs.indexOf(sp) }, "Systems by ", h("code", null, sp.spec))]);
      add(el, [plainTable(headers, body, { caption: "Systems by " + sp.spec, rowClass: function (i) { return hasCi && starts[i] && i > 0 ? "cluster-start" : null; } })]);
      var notes = [];
      if (hasCi) notes.push("Rank and the double lines: clusters of systems whose confidence intervals overlap the interval of the cluster's best system (a system starts a new cluster where its interval lies wholly below).");
      if (pairedRows.length) notes.push("Paired " + (pairedRows[0].test === "ar" ? "approximate randomization" : "bootstrap") + " test over documents (" + pairedRows[0].n + " resamples, seed " + pairedRows[0].seed + ", " + pairedRows[0].documents + " documents) against the baseline; the tests ran against the baseline only, so p-values exist for that row of the pairwise matrix alone.");
      if (!sp.higher) notes.push("Lower is better for this metric: systems are sorted best first.");
      notes.forEach(function (t) { add(el, [h("p", { class: "note" }, t)]); });
    });
    if (!M.specs.length && !M.metaeval.length && !M.mtme.length && !M.sweeps.length && !M.averages.length) add(el, [h("p", null, "No scores in this report.")]);
    if (M.metaeval.length || M.mtme.length || M.sweeps.length || M.averages.length) add(el, [h("p", null, "Meta-evaluation: see ", h("a", { href: "#judging" }, "Judging"), ".")]);
  }

  // -- Documents ------------------------------------------------------------------------------------
  function select(label, options, value, onchange) {
    var sel = h("select", { onchange: function () { onchange(sel.value); } }, options.map(function (o) {
      var v = Array.isArray(o) ? o[0] : o, t = Array.isArray(o) ? o[1] : o;
      return h("option", { value: v, selected: v === value }, t);
    }));
    return h("label", null, label, sel);
  }
  // a long id keeps its start and its end (where WMT's ids differ), the whole id on hover; CSS cuts what still does not fit
  function shortId(id) { return id.length > 32 ? id.slice(0, 12) + "\u2026" + id.slice(-19) : id; }
  function documents(el) {
    if (!docSpecs.length) {
      add(el, [h("p", null, "No per-document scores in this report: score with --report FILE.html, or save -f json with --level doc (or chunk) and rebuild with docmetrics report.")]);
      if (M.docs.length) add(el, [h("ul", null, M.docs.map(function (d) { return h("li", null, docLink(d.id)); }))]);
      return;
    }
    var chartBox = h("div", { class: "chart" }), tableBox = h("div"), status = h("p", { class: "note", role: "status", "aria-live": "polite" });
    var diffHead = h("h3", { class: "diff-head" });  // names the metric and the systems compared, redrawn with them
    var filterInput = h("input", { type: "search", value: S.filter, placeholder: "document id contains\u2026",
                                   oninput: function () { S.filter = filterInput.value; drawTable(); } });
    var systemsOpts = M.systems.filter(function (n) { return docSpecs.some(function (sp) { return sp.bySystem[n]; }); });
    var hr = humanRanking();
    if (hr) {  // the systems in the human ranking's order, those it does not rank after them; A and B: its first two
      var place = {}; hr.systems.forEach(function (x, i) { place[x.system] = i; });
      systemsOpts = systemsOpts.map(function (n, i) { return [n in place ? place[n] : hr.systems.length + i, n]; }).sort(function (x, y) { return x[0] - y[0]; }).map(function (x) { return x[1]; });
      if (!S.pairChosen && systemsOpts.length > 1) { S.a = systemsOpts[0]; S.b = systemsOpts[1]; }
    }
    add(el, [h("div", { class: "controls" },
      select("metric", docSpecs.map(function (sp) { return sp.spec; }), S.spec, function (v) { S.spec = v; S.picked = {}; redraw(); }),
      select("system A", systemsOpts, S.a, function (v) { S.a = v; S.pairChosen = true; S.picked = {}; redraw(); }),
      select("system B", systemsOpts, S.b, function (v) { S.b = v; S.pairChosen = true; S.picked = {}; redraw(); }),
      h("label", null, "filter", filterInput),
      h("button", { type: "button", onclick: function () { S.picked = {}; S.filter = ""; filterInput.value = ""; redraw(); } }, "clear filters")),
      diffHead, chartBox, status, h("h3", null, "Documents"), tableBox]);
    var table = null;
    function rowsNow() {
      var f = S.filter.toLowerCase(), picked = Object.keys(S.picked).length;
      return M.docs.map(function (d, k) { return k; }).filter(function (k) {
        if (picked && !S.picked[k]) return false;
        return !f || M.docs[k].id.toLowerCase().indexOf(f) >= 0;
      });
    }
    function drawChart() {
      clear(chartBox);
      diffHead.textContent = "Per-document difference of " + S.spec + ": A (" + S.a + ") \u2212 B (" + S.b + ")";
      var ks = M.docs.map(function (_, k) { return k; }), diffs = ks.map(function (k) {
        var a = docScore(S.spec, S.a, k), b = docScore(S.spec, S.b, k);
        return isNum(a) && isNum(b) ? a - b : null;
      });
      var vals = diffs.filter(isNum), maxAbs = Math.max.apply(null, vals.map(Math.abs).concat([1e-12]));
      var W = Math.max(600, Math.min(1200, ks.length * 14)), H = 200, pad = 40, bw = (W - pad - 10) / Math.max(1, ks.length), mid = H / 2;
      var svg = s("svg", { viewBox: "0 0 " + W + " " + (H + 20), width: W, role: "group", "aria-label": "Difference of " + S.spec + " per document, " + S.a + " minus " + S.b + "; each bar is a button that filters the table" });
      add(svg, [s("line", { class: "axis", x1: pad, x2: W - 5, y1: mid, y2: mid }),
                s("text", { x: 2, y: 12 }, "+" + fmt(maxAbs)), s("text", { x: 2, y: H - 2 }, "\u2212" + fmt(maxAbs)),
                s("text", { x: pad, y: H + 15 }, "A better \u2191 (" + S.a + ")   \u2193 B better (" + S.b + ")")]);
      ks.forEach(function (k, i) {
        var d = diffs[k]; if (!isNum(d)) return;
        var len = Math.abs(d) / maxAbs * (mid - 8), y = d >= 0 ? mid - len : mid;
        var oriented = M.specOf[S.spec].higher ? d : -d;
        var label = M.docs[k].id + ": " + fmt(d) + (oriented > 0 ? " (A better)" : oriented < 0 ? " (B better)" : "");
        var bar = s("rect", { class: "bar " + (d >= 0 ? "pos" : "neg") + (S.picked[k] ? " chosen" : ""), x: pad + i * bw + bw * 0.1, y: y,
                              width: Math.max(1, bw * 0.8), height: Math.max(1, len), tabindex: 0, role: "button",
                              "aria-pressed": S.picked[k] ? "true" : "false", "aria-label": label, "data-doc": M.docs[k].id },
                      s("title", null, label));
        function toggle() { if (S.picked[k]) delete S.picked[k]; else S.picked[k] = true; drawChart(); drawTable(); var again = chartBox.querySelector('[data-doc="' + CSS.escape(M.docs[k].id) + '"]'); if (again) again.focus(); }
        bar.addEventListener("click", toggle);
        bar.addEventListener("keydown", function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); toggle(); } });
        svg.appendChild(bar);
      });
      chartBox.appendChild(svg);
      var n = Object.keys(S.picked).length;
      status.textContent = n ? n + " document(s) chosen in the chart: the table shows them only." : "Choose bars (click, or Enter on a focused bar) to show only those documents.";
    }
    function drawTable() {
      var spec = S.spec, higher = M.specOf[spec].higher;
      var cols = [{ label: "document", head: true, key: function (k) { return M.docs[k].id; }, title: function (k) { return M.docs[k].id; },
                    cell: function (k) { var id = M.docs[k].id, a = docLink(id, shortId(id)); a.className = "id"; if (a.textContent !== id) a.setAttribute("aria-label", id); return a; } },
                  { label: "position", num: true, key: function (k) { return k; }, cell: function (k) { return String(k + 1); } }];
      systemsOpts.forEach(function (n) {
        cols.push({ label: n, num: true, key: function (k) { return docScore(spec, n, k); }, cell: function (k) { return fmt(docScore(spec, n, k)); } });
      });
      function diff(k) { var a = docScore(spec, S.a, k), b = docScore(spec, S.b, k); return isNum(a) && isNum(b) ? a - b : null; }
      cols.push({ label: "A \u2212 B", num: true, key: diff, cell: function (k) { return fmt(diff(k)); } });
      var sortCol = -1, sortDir = 1;
      if (hasHuman) {
        function hd(k) { var a = humanDoc(S.a, k), b = humanDoc(S.b, k); return isNum(a) && isNum(b) ? a - b : null; }
        function agree(k) {
          return tau(systemsOpts.map(function (n) { var v = docScore(spec, n, k); return isNum(v) ? (higher ? v : -v) : null; }),
                     systemsOpts.map(function (n) { return humanDoc(n, k); }));
        }
        cols.push({ label: "human A", num: true, key: function (k) { return humanDoc(S.a, k); }, cell: function (k) { return fmt(humanDoc(S.a, k)); } });
        cols.push({ label: "human B", num: true, key: function (k) { return humanDoc(S.b, k); }, cell: function (k) { return fmt(humanDoc(S.b, k)); } });
        cols.push({ label: "human A \u2212 B", num: true, key: hd, cell: function (k) { return fmt(hd(k)); } });
        cols.push({ label: "metric-human \u03c4", num: true, key: agree, cell: function (k) { return fmt(agree(k), 3); } });
        sortCol = cols.length - 1; sortDir = 1;
      }
      if (S.docSort) {  // the sort chosen before the table was drawn again (a new metric, pair or filter)
        var at = cols.map(function (c) { return c.label; }).indexOf(S.docSort.label);
        if (at >= 0) { sortCol = at; sortDir = S.docSort.dir; }
      }
      clear(tableBox);
      table = sortable(cols, rowsNow(), { sortCol: sortCol, sortDir: sortDir, caption: "Per-document scores", cls: "docs", page: 100,
                                          onSort: function (i, dir) { S.docSort = { label: cols[i].label, dir: dir }; },
                                          rowAttrs: function (k) { return { "data-doc": M.docs[k].id, class: S.picked[k] ? "selected" : null }; } });
      add(tableBox, [table.el]);
      if (hasHuman) add(tableBox, [h("p", { class: "note" }, "metric-human \u03c4: Kendall's tau (tau-a) between the metric's and the humans' scores of the systems on the document (human: the mean of the document's judged segments); first sorted lowest first: the documents where metric and humans disagree most.")]);
    }
    function redraw() { drawChart(); drawTable(); }
    redraw();
  }

  // -- A document ------------------------------------------------------------------------------------
  var SEV = { minor: "min", major: "MAJ", critical: "CRIT", neutral: "neu" };
  function sevRank(x) { x = String(x || "").toLowerCase(); return x === "critical" ? 3 : x === "major" ? 2 : x === "minor" ? 1 : 0; }
  function withSpans(text, spans) {
    if (!spans || !spans.length) return [text];
    var cuts = [0, text.length];
    spans.forEach(function (sp) { if (isNum(sp[0]) && isNum(sp[1])) cuts.push(Math.max(0, Math.min(text.length, sp[0])), Math.max(0, Math.min(text.length, sp[1]))); });
    cuts = cuts.filter(function (v, i, a) { return a.indexOf(v) === i; }).sort(function (a, b) { return a - b; });
    var out = [];
    for (var i = 0; i + 1 < cuts.length; i++) {
      var a = cuts[i], b = cuts[i + 1], piece = text.slice(a, b);
      var on = spans.filter(function (sp) { return isNum(sp[0]) && sp[0] <= a && sp[1] >= b && sp[1] > sp[0]; });
      if (!on.length) { out.push(piece); continue; }
      on.sort(function (x, y) { return sevRank(y[2]) - sevRank(x[2]); });
      var sev = String(on[0][2] || "").toLowerCase(), what = on.map(function (sp) { return sp[2] + (sp[3] ? ": " + sp[3] : ""); }).join("; ");
      out.push(h("mark", { class: "span sev-" + sev, title: what }, piece, h("span", { class: "sev", "aria-hidden": "true" }, SEV[sev] || sev),
                 h("span", { class: "visually-hidden" }, " (" + what + ")")));
    }
    var noPlace = spans.filter(function (sp) { return !isNum(sp[0]); });
    if (noPlace.length) out.push(h("span", { class: "note" }, " [" + noPlace.map(function (sp) { return sp[2] + " omission" + (sp[3] ? ": " + sp[3] : ""); }).join("; ") + "]"));
    return out;
  }
  /* A metric's own error spans per line (the model's: XCOMET, an LLM judge): SLIDE's detail.segment_spans,
     else the spans of units of one segment each; [start, end, severity, what] as the human spans. */
  function modelSpans(r) {
    if (!r) return null;
    if (r.modelSpans !== undefined) return r.modelSpans;
    var out = {}, any = false;
    function put(line, spans) {
      (spans || []).forEach(function (x) {
        any = true;
        (out[line] = out[line] || []).push([x.start, x.end, x.severity, isNum(x.confidence) ? "confidence " + fmt(x.confidence, 2) : ""]);
      });
    }
    var seg = r.detail && r.detail.segment_spans;
    if (Array.isArray(seg)) seg.forEach(function (x) { put(x.line - 1, x.spans); });
    else if (r.units && r.units.spans) {
      for (var i = 0; i < r.units.doc.length; i++) if (r.units.end[i] - r.units.start[i] === 1) put(r.units.start[i], r.units.spans[i]);
    }
    return (r.modelSpans = any ? out : null);
  }
  function answers(r) { // line -> an LLM judge's answer, for units of one segment
    if (!r || !r.units || !r.units.answer) return null;
    if (r.lineAnswers !== undefined) return r.lineAnswers;
    var out = {}, any = false;
    for (var i = 0; i < r.units.doc.length; i++) {
      var a = r.units.answer[i];
      if (a !== null && a !== undefined && r.units.end[i] - r.units.start[i] === 1 && !(r.units.group && r.units.group[i])) { out[r.units.start[i]] = String(a); any = true; }
    }
    return (r.lineAnswers = any ? out : null);
  }
  function bySystemOf(sp, n) {
    if (sp.bySystem[n]) return sp.bySystem[n];
    var stem = n.replace(/\.[^.\/]*$/, "");
    return sp.bySystem[stem] || null;
  }
  function humanSpans(n) {
    if (!M.spans) return null;
    if (n in M.spans) return M.spans[n];
    var stem = n.replace(/\.[^.\/]*$/, "");
    return stem in M.spans ? M.spans[stem] : null;
  }
  var spanSpecs = M.specs.filter(function (sp) { return Object.keys(sp.bySystem).some(function (n) { return modelSpans(sp.bySystem[n]); }); });
  var answerSpecs = M.specs.filter(function (sp) { return Object.keys(sp.bySystem).some(function (n) { return answers(sp.bySystem[n]); }); });
  function unitsOf(r, k) {
    var out = []; if (!r || !r.units) return out;
    for (var i = 0; i < r.units.doc.length; i++) if (r.units.doc[i] === k) out.push(i);
    return out;
  }
  function segScores(r, k) { // line -> score, for units of one segment
    var out = {}; unitsOf(r, k).forEach(function (i) { if (r.units.end[i] - r.units.start[i] === 1 && !(r.units.group && r.units.group[i])) out[r.units.start[i]] = r.units.score[i]; });
    return out;
  }
  function documentView(el) {
    if (!M.docs.length) { add(el, [h("p", null, "No documents in this report.")]); return; }
    var k = M.docIndex[S.doc] || 0, d = M.docs[k], T = M.texts;
    var specHere = docSpecs.length ? (S.spec || docSpecs[0].spec) : null;
    var chosen = S.chosen.filter(function (n) { return M.systems.indexOf(n) >= 0; });
    function go(delta) { var j = Math.max(0, Math.min(M.docs.length - 1, k + delta)); location.hash = "doc=" + encodeURIComponent(M.docs[j].id); }
    add(el, [h("div", { class: "controls" },
      select("document", M.docs.map(function (x) { return x.id; }), d.id, function (v) { location.hash = "doc=" + encodeURIComponent(v); }),
      h("button", { type: "button", onclick: function () { go(-1); }, disabled: k === 0 }, "\u2190 previous"),
      h("button", { type: "button", onclick: function () { go(1); }, disabled: k === M.docs.length - 1 }, "next \u2192"),
      docSpecs.length ? select("metric", docSpecs.map(function (sp) { return sp.spec; }), specHere, function (v) { S.spec = v; redraw(); }) : null,
      h("fieldset", null, h("legend", null, "systems shown"), M.systems.map(function (n) {
        var box = h("input", { type: "checkbox", checked: chosen.indexOf(n) >= 0, onchange: function () {
          if (box.checked) S.chosen.push(n); else S.chosen = S.chosen.filter(function (x) { return x !== n; }); redraw(); } });
        return h("label", { class: "check" }, box, " " + n);
      }))),
      h("p", null, "Document ", h("strong", { id: "doc-title" }, d.id), " (" + (k + 1) + " of " + M.docs.length + ")" + (d.start !== null ? ", lines " + (d.start + 1) + "\u2013" + d.end : ""))]);
    function redraw() { drawn.document = false; route(); }
    // document scores
    if (docSpecs.length) {
      add(el, [h("h3", null, "Document scores")]);
      add(el, [plainTable(["metric"].concat(M.systems), docSpecs.map(function (sp) {
        return [sp.spec].concat(M.systems.map(function (n) { var v = docScore(sp.spec, n, k); return isNum(v) ? v : "\u2013"; }));
      }), { caption: "Document scores" })]);
    }
    // segments side by side
    if (T && d.start !== null) {
      var refs = T.references || [], refNames = T.reference_names || [];
      var rs = chosen.map(function (n) { return specHere ? M.specOf[specHere].bySystem[n] : null; });
      var seg = rs.map(function (r) { return segScores(r, k); });
      var headers = ["line"].concat(T.source ? ["source"] : []).concat(chosen).concat(refs.map(function (_, i) { return refNames[i] || "reference " + (i + 1); }));
      // where the metric and the humans disagree: Kendall's tau over every system with both scores on the line
      var allSeg = specHere && hasHuman ? M.systems.map(function (n) { return segScores(bySystemOf(M.specOf[specHere], n), k); }) : null;
      var higherHere = specHere ? M.specOf[specHere].higher : true, lineTau = {}, lines = [];
      for (var ln = d.start; ln < d.end; ln++) {
        lines.push(ln);
        if (allSeg) lineTau[ln] = tau(M.systems.map(function (n, j) { var v = allSeg[j][ln]; return isNum(v) ? (higherHere ? v : -v) : null; }),
                                      M.systems.map(function (n) { var hm = humanSystem(n); return hm ? hm[ln] : null; }));
      }
      var canOrder = lines.some(function (x) { return isNum(lineTau[x]); }), order = canOrder ? (S.segOrder || "disagree") : "document";
      if (order === "disagree") lines.sort(function (a, b) { var x = lineTau[a], y = lineTau[b]; if (!isNum(x)) return isNum(y) ? 1 : a - b; if (!isNum(y)) return -1; return x - y || a - b; });
      var rows = [];
      lines.forEach(function (line) {
        var cells = [h("th", { scope: "row", class: "num" }, String(line + 1), canOrder ? h("span", { class: "score", title: "Kendall's tau between " + specHere + " and the " + humanKind() + " scores of the systems on this line" }, "\u03c4 " + fmt(lineTau[line], 2)) : null)];
        if (T.source) cells.push(h("td", { lang: "" }, T.source[line]));
        chosen.forEach(function (n, j) {
          var text = (T.systems[n] || [])[line];
          var hs = humanSpans(n), spans = hs ? hs[String(line)] : null;
          var hum = humanSystem(n), layers = [], said = [];
          if (text !== undefined && text !== null) {
            spanSpecs.forEach(function (sp) { var ms = modelSpans(bySystemOf(sp, n)); if (ms && ms[line]) layers.push(h("div", { class: "layer" }, h("span", { class: "who" }, sp.spec), " ", withSpans(text, ms[line]))); });
            answerSpecs.forEach(function (sp) { var a = answers(bySystemOf(sp, n)); if (a && a[line] !== undefined) said.push(h("details", { class: "answer" }, h("summary", null, "answer of " + sp.spec), h("pre", null, a[line]))); });
          }
          cells.push(h("td", null, text === undefined || text === null ? h("span", { class: "muted" }, "(no output)")
                         : layers.length ? h("div", { class: "layer" }, h("span", { class: "who" }, spans ? "human" : "text"), " ", withSpans(text, spans)) : withSpans(text, spans), layers, said,
            isNum(seg[j][line]) ? h("span", { class: "score" }, specHere + ": " + fmt(seg[j][line])) : null,
            hum && isNum(hum[line]) ? h("span", { class: "score" }, humanKind() + ": " + fmt(hum[line])) : null));
        });
        refs.forEach(function (ref) { cells.push(h("td", null, ref[line])); });
        rows.push(h("tr", { "data-line": line }, cells));
      });
      add(el, [h("h3", null, "Segments"), canOrder ? h("div", { class: "controls" }, select("order", [["disagree", "where " + specHere + " and the humans disagree most first"], ["document", "the document's order"]], order,
        function (v) { S.segOrder = v; redraw(); })) : null,
        canOrder ? h("p", { class: "note" }, "\u03c4 under each line number: Kendall's tau between " + specHere + "'s and the " + humanKind() + " scores of the systems on the line (all systems, not only those shown); lowest first: where they disagree most.") : null,
        h("div", { class: "scroll" }, h("table", { class: "segs", id: "segments" },
        h("caption", { class: "visually-hidden" }, "Segments of " + d.id),
        h("thead", null, h("tr", null, headers.map(function (x) { return h("th", { scope: "col" }, x); }))), h("tbody", null, rows)))]);
      if (M.spans || spanSpecs.length) add(el, [h("p", { class: "legend" }, "Error spans" + (spanSpecs.length ? " (human" + (M.spans ? "" : ": none here") + "; below them, labelled, each metric's own: " + spanSpecs.map(function (sp) { return sp.spec; }).join(", ") + ")" : "") + ": ", h("mark", { class: "span sev-minor" }, "minor", h("span", { class: "sev" }, "min")),
        h("mark", { class: "span sev-major" }, "major", h("span", { class: "sev" }, "MAJ")), h("mark", { class: "span sev-critical" }, "critical", h("span", { class: "sev" }, "CRIT")),
        " (the label and the underline say the severity; hover or focus for the category)")]);
    } else add(el, [h("p", { class: "note" }, "The texts are not in this report (a saved -f json holds scores only): docmetrics report ... -i HYP... -s SRC -r REF --doc-ids IDS adds them.")]);
    // units (SLIDE windows, chunks)
    if (specHere) {
      chosen.forEach(function (n) {
        var r = M.specOf[specHere].bySystem[n], idx = unitsOf(r, k);
        if (!idx.length || idx.every(function (i) { return r.units.end[i] - r.units.start[i] === 1 && !(r.units.group && r.units.group[i]); })) return;
        var inLines = d.start !== null && idx.every(function (i) { return r.units.start[i] >= d.start && r.units.end[i] <= d.end; });
        add(el, [h("h3", null, "Units of " + specHere + " for " + n)]);
        var tb = h("tbody");
        idx.forEach(function (i, j) {
          var u = r.units, a = u.start[i], b = u.end[i];
          var tr = h("tr", { tabindex: inLines ? 0 : null, "data-start": a, "data-end": b },
            h("th", { scope: "row", class: "num" }, String(j + 1)), h("td", null, inLines ? "lines " + (a + 1) + "\u2013" + b : a + "\u2013" + b),
            h("td", null, u.group ? u.group[i] : ""), h("td", { class: "num" }, fmt(u.score[i])),
            h("td", null, [u.weight && u.weight[i] !== 1 ? "weight " + u.weight[i] : "", u.truncated && u.truncated[i] ? " truncated" : "", u.partial && u.partial[i] ? " partial" : "",
                           u.spans && u.spans[i] && u.spans[i].length ? " " + u.spans[i].length + " error span(s)" : ""].join(" ").trim(),
              u.answer && u.answer[i] !== null && u.answer[i] !== undefined ? h("details", { class: "answer" }, h("summary", null, "answer"), h("pre", null, String(u.answer[i]))) : null));
          if (inLines) {
            var on = function () { document.querySelectorAll("#segments tr[data-line]").forEach(function (row) { var l = +row.getAttribute("data-line"); row.classList.toggle("covered", l >= a && l < b); }); };
            var off = function () { document.querySelectorAll("#segments tr.covered").forEach(function (row) { row.classList.remove("covered"); }); };
            tr.addEventListener("mouseenter", on); tr.addEventListener("focus", on); tr.addEventListener("mouseleave", off); tr.addEventListener("blur", off);
          }
          tb.appendChild(tr);
        });
        add(el, [h("div", { class: "scroll" }, h("table", { class: "units" }, h("thead", null, h("tr", null, ["unit", inLines ? "covers" : "sentences", "group", "score", ""].map(function (x) { return h("th", { scope: "col" }, x); }))), tb)),
                 inLines ? h("p", { class: "note" }, "Hover or focus a unit to highlight the segments it covered.") : null]);
      });
    }
    // alignments
    var recs = M.alignments.filter(function (a) { return a.doc_id === d.id && (chosen.indexOf(a.system) >= 0 || !chosen.length); });
    recs.forEach(function (rec, ri) {
      add(el, [h("h3", null, "Alignment: " + rec.system + " (" + rec.metric + ", " + rec.side + ")")]);
      var targets = [];
      rec.alignment.forEach(function (a) { a.targets.forEach(function (t, j) { targets[t] = { text: a.target_texts[j], src: a.src_index, sim: a.similarities[j] }; }); });
      var srcList = h("ol", { "aria-label": "source sentences" }), tgtList = h("ol", { "aria-label": (rec.side === "ref" ? "reference" : "translation") + " sentences" });
      var box = h("div", { class: "align", "data-record": ri });
      function link(g, on) { box.querySelectorAll('[data-group="' + g + '"]').forEach(function (x) { x.classList.toggle("linked", on); }); }
      function hook(li, g) {
        li.addEventListener("mouseenter", function () { link(g, true); }); li.addEventListener("mouseleave", function () { link(g, false); });
        li.addEventListener("focus", function () { link(g, true); }); li.addEventListener("blur", function () { link(g, false); });
      }
      rec.alignment.forEach(function (a) {
        var li = h("li", { tabindex: 0, "data-group": a.src_index, class: a.targets.length ? null : "none",
                           "aria-label": "source " + (a.src_index + 1) + ", aligned to " + (a.targets.length ? "translation sentences " + a.targets.map(function (t) { return t + 1; }).join(", ") : "nothing") }, a.source);
        hook(li, a.src_index); srcList.appendChild(li);
      });
      for (var t = 0; t < Math.max(targets.length, rec.target_sentences || 0); t++) {
        var x = targets[t] || null;
        var li = h("li", { tabindex: 0, "data-group": x ? x.src : "none-" + t, class: x ? null : "none" }, x ? x.text : "(not in the alignment)");
        if (x) hook(li, x.src); tgtList.appendChild(li);
      }
      add(box, [h("div", null, h("h4", null, "source"), srcList), h("div", null, h("h4", null, rec.side === "ref" ? "reference" : "translation"), tgtList)]);
      add(el, [box, h("details", null, h("summary", null, "The alignment as a table"),
        plainTable(["source sentence", "text", "aligned sentences", "similarities"], rec.alignment.map(function (a) {
          return [String(a.src_index + 1), a.source, a.targets.length ? a.targets.map(function (t, j) { return (t + 1) + ". " + a.target_texts[j]; }).join(" | ") : "(none)",
                  a.similarities.map(function (v) { return fmt(v, 3); }).join(", ")];
        }), { caption: "Alignment of " + rec.system }))]);
    });
  }

  // -- Judging ---------------------------------------------------------------------------------------
  /* [key in the JSON, header, the statistic whose cluster a row's "clusters" gives]: the CLI's column order */
  var STAT_COLS = [["pearson", "pearson", "pearson"], ["spearman", "spearman", "spearman"], ["kendall", "kendall", "kendall"],
                   ["accuracy", "accuracy", "accuracy"], ["spa", "spa", "spa"], ["acc_eq", "acc_eq", "seg_acc_eq"], ["epsilon", "epsilon"],
                   ["seg_pearson", "seg-pearson", "seg_pearson"], ["seg_kendall", "seg-kendall", "seg_kendall"], ["pdp", "sys-pdp", "pdp"]];
  var DOC_COLS = [["documents", "documents"], ["acc_eq", "acc_eq", "doc_acc_eq"], ["epsilon", "epsilon"], ["pearson", "pearson", "doc_pearson"],
                  ["kendall", "kendall", "doc_kendall"], ["pearson_item", "pearson-doc", "doc_pearson_item"], ["kendall_item", "kendall-doc", "doc_kendall_item"],
                  ["spa", "spa", "doc_spa"], ["pdp", "pdp", "doc_pdp"]];
  // columns that count (documents, items, error-free items...): printed as whole numbers, not 5402.0000
  var COUNTS = { documents: 1, n: 1, items: 1, error_free: 1, predicted_error_free: 1, tp: 1, fp: 1, fn: 1, tn: 1, skipped: 1 };
  function statTable(rows, cols, get, caption) {
    var used = cols.filter(function (c) { return rows.some(function (r) { var v = get(r); return v && v[c[0]] !== undefined && v[c[0]] !== null; }); });
    function cluster(r, c) { var k = c[2] && r.clusters ? r.clusters[c[2]] : null; return k === null || k === undefined ? "" : " (" + k + ")"; }
    return sortable([{ label: "metric", head: true, key: function (r) { return r.spec || r.metric; }, cell: function (r) { return h("code", null, r.spec || r.metric); } }]
      .concat(used.map(function (c) { return { label: c[1], num: true, key: function (r) { var v = get(r); return v ? v[c[0]] : null; },
        cell: function (r) { var v = get(r), x = v ? v[c[0]] : null; return typeof x === "number" ? (COUNTS[c[0]] && Number.isInteger(x) ? String(x) : fmt(x, c[0] === "epsilon" ? 6 : 4) + cluster(r, c)) : x === null || x === undefined ? "\u2013" : String(x); } }; })),
      rows, { caption: caption }).el;
  }
  function clustersNote(rows) {
    var pb = rows.map(function (r) { return r.perm_both; }).filter(function (x) { return x; })[0];
    return pb ? h("p", { class: "note" }, "(n): the significance cluster of the statistic by PERM-BOTH between metrics (" + pb.n_resamples + " resamples, seed " + pb.seed + ", alpha " + pb.alpha + ").") : null;
  }
  /* The PERM-BOTH p-values between the metrics of one meta-evaluation (D.significance: a source, and a language
     pair of MTME's): per compared statistic, a matrix of the metrics in ranking order, cell (row a, column b) the
     p-value of "a is better than b" where a ranks above b, shaded where below alpha; or the note why there is none. */
  function significance(source, lp) {
    var g = (D.significance || []).filter(function (x) { return x.source === source && x.lp === (lp === undefined ? null : lp); })[0];
    if (!g) return null;
    if (g.note) return h("p", { class: "note significance-note", "data-source": source, "data-lp": g.lp }, g.note);
    return h("div", { class: "significance", "data-source": source, "data-lp": g.lp }, h("h4", null, "Significance between metrics: PERM-BOTH p-values"),
             h("p", { class: "note" }, "Per statistic, the metrics in its ranking's order; cell (row, column): the p-value of \u201cthe row's metric is better than the column's\u201d, " +
               "where the row ranks above the column; grey: no such test (the same metric, the row ranked below the column, or a pair not tested); cluster: the row's significance cluster, double lines between clusters."),
             h("div", { class: "cards" }, g.matrices.map(pMatrix)));
  }
  function pMatrix(x) {
    var n = x.metrics.length, sig = 0;
    var rows = x.metrics.map(function (a, i) {
      return h("tr", { class: i > 0 && x.clusters[i] !== x.clusters[i - 1] ? "cluster-start" : null },
        h("td", { class: "num" }, x.clusters[i] === null || x.clusters[i] === undefined ? "\u2013" : String(x.clusters[i])),
        h("th", { scope: "row" }, a),
        x.metrics.map(function (b, j) {
          var p = x.pvalues[i][j];
          if (!isNum(p)) return h("td", { class: "p none" }, "");
          var yes = p < x.alpha; if (yes) sig++;
          return h("td", { class: "p num" + (yes ? " signif" : ""), title: a + " better than " + b + ": p = " + p + (yes ? " < " : " \u2265 ") + x.alpha + (yes ? ", significant" : ", not significant") }, p === 0 ? "0.0000" : fmtP(p));
        }));
    });
    var skipped = Object.keys(x.skipped || {});
    return h("div", { class: "scroll" }, h("table", { class: "matrix", "data-statistic": x.statistic },
      h("caption", null, h("strong", null, x.statistic), ": PERM-BOTH p-value of \u201crow better than column\u201d (" + x.n_resamples + " resamples, seed " + x.seed +
        "); shaded and bold: significant, p < " + x.alpha + " (" + sig + " of " + n * (n - 1) / 2 + " pairs)"),
      h("thead", null, h("tr", null, h("th", { scope: "col" }, "cluster"), h("th", { scope: "col" }, "metric"), x.metrics.map(function (b) { return h("th", { scope: "col", class: "num" }, b); }))),
      h("tbody", null, rows)),
      skipped.length ? h("p", { class: "note" }, "Not compared: " + skipped.map(function (k) { return k + " (" + x.skipped[k] + ")"; }).join("; ") + ".") : null);
  }
  function pearsonR(xs, ys) {
    var n = xs.length, mx = mean(xs), my = mean(ys), sxy = 0, sxx = 0, syy = 0;
    for (var i = 0; i < n; i++) { sxy += (xs[i] - mx) * (ys[i] - my); sxx += (xs[i] - mx) * (xs[i] - mx); syy += (ys[i] - my) * (ys[i] - my); }
    return sxx > 0 && syy > 0 ? sxy / Math.sqrt(sxx * syy) : null;
  }
  /* A scatter of system scores: every point labelled with its system's name where a label fits without touching
     another label or point (tried right, left, above, below), else numbered and named in the legend below;
     r (Pearson, over the points drawn) and what the meta-evaluation said of its significance in the caption. */
  function scatter(title, xs, ys, names, xl, yl, said) {
    var W = 520, H = 360, L = 52, B = 44, T = 12, R = 12, pts = [];
    for (var i = 0; i < xs.length; i++) if (isNum(xs[i]) && isNum(ys[i])) pts.push(i);
    if (!pts.length) return null;
    function range(v) { var a = Math.min.apply(null, v), b = Math.max.apply(null, v), m = a === b ? 1 : (b - a) * 0.04; return [a - m, b + m]; }
    var rx = range(pts.map(function (i) { return xs[i]; })), ry = range(pts.map(function (i) { return ys[i]; }));
    function X(v) { return L + (v - rx[0]) / (rx[1] - rx[0]) * (W - L - R); } function Y(v) { return H - B - (v - ry[0]) / (ry[1] - ry[0]) * (H - B - T); }
    var r = pearsonR(pts.map(function (i) { return xs[i]; }), pts.map(function (i) { return ys[i]; }));
    var svg = s("svg", { viewBox: "0 0 " + W + " " + H, width: W, role: "img", class: "scatter", "aria-label": title + ": " + pts.length + " systems, r = " + fmt(r, 3) },
      s("title", null, title),
      s("line", { class: "axis", x1: L, x2: W - R, y1: H - B, y2: H - B }), s("line", { class: "axis", x1: L, x2: L, y1: T, y2: H - B }),
      s("text", { x: L, y: H - B + 14 }, fmt(rx[0])), s("text", { x: W - R, y: H - B + 14, "text-anchor": "end" }, fmt(rx[1])),
      s("text", { class: "axis-name", x: (L + W - R) / 2, y: H - 8, "text-anchor": "middle" }, xl),
      s("text", { x: L - 4, y: T + 10, "text-anchor": "end" }, fmt(ry[1], 1)), s("text", { x: L - 4, y: H - B, "text-anchor": "end" }, fmt(ry[0], 1)),
      s("text", { class: "axis-name", x: 14, y: (T + H - B) / 2, "text-anchor": "middle", transform: "rotate(-90 14 " + (T + H - B) / 2 + ")" }, yl));
    var boxes = pts.map(function (i) { return [X(xs[i]) - 4, Y(ys[i]) - 4, X(xs[i]) + 4, Y(ys[i]) + 4]; }), legend = [];
    var ctx = document.createElement("canvas").getContext("2d");
    if (ctx) ctx.font = "10.5px system-ui, -apple-system, 'Segoe UI', sans-serif";
    function textWidth(x) { return (ctx ? ctx.measureText(x).width : x.length * 6.5) + 3; }
    function spots(x, y, w) { return [[x + 6, y - 6], [x - 6 - w, y - 6], [x - w / 2, y - 18], [x - w / 2, y + 6], [x + 5, y - 16], [x - 5 - w, y - 16], [x + 5, y + 4], [x - 5 - w, y + 4]]; }
    function place(x, y, w, far) {  // far: also further out (a number, which must find room), joined to its point by a line
      var at = null, cands = spots(x, y, w);
      if (far) for (var rad = 14; rad <= 90; rad += 8) for (var a = 0; a < 16; a++) cands.push([x + rad * Math.cos(a * Math.PI / 8) - w / 2, y + rad * Math.sin(a * Math.PI / 8) - 7]);
      cands.some(function (c) { var bx = [c[0], c[1], c[0] + w, c[1] + 14]; if (free(bx)) { at = bx; return true; } return false; });
      if (at) boxes.push(at);
      return at;
    }
    function free(bx) {
      if (bx[0] < L + 2 || bx[2] > W - 2 || bx[1] < 0 || bx[3] > H - B - 2) return false;
      return boxes.every(function (o) { return bx[2] <= o[0] || bx[0] >= o[2] || bx[3] <= o[1] || bx[1] >= o[3]; });
    }
    // place the labels of the most crowded points last: first the points far from the others
    var order = pts.slice().sort(function (a, b) { return Y(ys[a]) - Y(ys[b]) || X(xs[a]) - X(xs[b]); });
    order.forEach(function (i) {
      var x = X(xs[i]), y = Y(ys[i]), placed = place(x, y, textWidth(String(names[i]))), label;
      if (placed) label = s("text", { class: "label", x: placed[0] + 1, y: placed[1] + 11 }, names[i]);
      else {  // no room for the name: a number, named in the legend below the plot
        legend.push(i);
        var num = String(legend.length), nb = place(x, y, textWidth(num) + 2, true) || [x + 5, y - 7, x + 12, y + 7];
        label = [Math.abs((nb[0] + nb[2]) / 2 - x) > 12 || Math.abs((nb[1] + nb[3]) / 2 - y) > 12 ? s("line", { class: "leader", x1: x, y1: y, x2: (nb[0] + nb[2]) / 2, y2: (nb[1] + nb[3]) / 2 }) : null,
                 s("text", { class: "label num", x: nb[0] + 1, y: nb[1] + 11 }, num)];
      }
      var g = s("g", { class: "point", "data-system": names[i] }, label, s("circle", { class: "dot", cx: x, cy: y, r: 4 }, s("title", null, names[i] + ": " + fmt(xs[i]) + ", " + fmt(ys[i]))));
      svg.appendChild(g);
    });
    var cap = [h("strong", null, title), ": r = " + fmt(r, 3) + " over " + pts.length + " systems" + (said ? "; " + said : "") + "."];
    return h("figure", { class: "scatter-fig" }, svg, h("figcaption", null, cap,
      legend.length ? h("ol", { class: "legend-list" }, legend.map(function (i, j) { return h("li", { value: j + 1 }, names[i]); })) : null));
  }
  /* What a meta-evaluation row says of its system-level Pearson: the value, its cluster by PERM-BOTH among the metrics. */
  function pearsonSaid(row, perm) {
    var c = row.clusters && row.clusters.pearson;
    if (c === null || c === undefined) return "no significance test between metrics in this report";
    return "significance cluster " + c + " of the metrics by PERM-BOTH on Pearson (" + (perm ? perm.n_resamples + " resamples, alpha " + perm.alpha + "; " : "") + "cluster 1: no metric significantly better)";
  }
  function judging(el) {
    var any = false;
    M.metaeval.forEach(function (g) {
      any = true;
      var named = fileName(D.sources[g.source]), perm = g.rows.map(function (r) { return r.perm_both; }).filter(Boolean)[0];
      add(el, [h("h3", null, "Meta-evaluation against the " + humanKind() + " scores" + (named ? " (" + named + ")" : "") + ": system and segment level"), statTable(g.rows, STAT_COLS, function (r) { return r; }, "Meta-evaluation"), clustersNote(g.rows),
               significance(g.source, null)]);
      // the system scores against the human ones belong to the system level, above the document level's table
      var figs = g.rows.map(function (r) { return scatter((r.spec || r.metric) + " against " + humanKind() + ", per system", r.metric_scores, r.human_scores, r.systems,
                                                          (r.spec || r.metric) + " (system score)", humanKind() + " (system mean)", pearsonSaid(r, perm)); });
      add(el, [h("h4", null, "System scores against " + humanKind() + " scores"), h("div", { class: "cards system-scatter" }, figs)]);
      if (g.rows.some(function (r) { return r.document; })) add(el, [h("h3", null, "Document level"), statTable(g.rows.filter(function (r) { return r.document; }), DOC_COLS, function (r) { return r.document; }, "Document level")]);
    });
    M.errorFree.forEach(function (g) {
      if (!g.rows.length) return; any = true;
      add(el, [h("h3", null, "Error-free detection" + (fileName(D.sources[g.source]) ? " (" + g.name + ")" : "")), statTable(g.rows, [["mcc", "MCC"], ["precision", "precision"], ["recall", "recall"], ["f1", "F1"],
        ["average_precision", "AP"], ["threshold", "threshold"], ["chosen_by", "chosen by"], ["error_free", "error-free"], ["n", "items"], ["note", "note"]], function (r) { return r; }, "Error-free detection")]);
    });
    M.mtme.forEach(function (x) {
      var m = x.lp;
      any = true;
      add(el, [h("h3", null, "MTME " + m.testset + " " + m.lp + " (human: " + m.human + ", reference: " + m.reference + ")")]);
      var comps = m.comparisons || {};
      var rankOf = function (stat, metric) { var c = comps[stat]; if (!c) return null; var x = c.ranking.filter(function (y) { return y.metric === metric; })[0]; return x ? x.rank : null; };
      var cols = [["spa", "spa", function (e) { return e.system.spa; }], ["pearson", "pearson", function (e) { return e.system.pearson; }],
                  ["accuracy", "accuracy", function (e) { return e.system.accuracy; }], ["seg_acc_eq", "seg acc_eq", function (e) { return e.segment && e.segment.acc_eq; }],
                  ["seg_pearson", "seg pearson", function (e) { return e.segment && e.segment.pearson; }]];
      var rows = (m.metrics || []).slice().sort(function (a, b) { return (cols[0][2](b) || -1e9) - (cols[0][2](a) || -1e9); });
      var spaRanks = rows.map(function (e) { return rankOf("spa", e.metric); });
      add(el, [plainTable(["metric"].concat(cols.map(function (c) { return c[1]; })), rows.map(function (e) {
        return [e.metric].concat(cols.map(function (c) { var v = c[2](e), r = rankOf(c[0], e.metric); return isNum(v) ? fmt(v) + (r ? " (" + r + ")" : "") : "\u2013"; }));
      }), { caption: "MTME meta-evaluation", rowClass: function (i) { return i > 0 && spaRanks[i] !== spaRanks[i - 1] ? "cluster-start" : null; } }),
        h("p", { class: "note" }, "(n): the significance cluster of the statistic by PERM-BOTH" + (m.perm_both ? " (" + m.perm_both.n_resamples + " resamples, alpha " + m.perm_both.alpha + ")" : "") + "; double lines between the SPA clusters."),
        significance(x.source, m.lp)]);
      var figs = (m.metrics || []).map(function (e) { var c = rankOf("pearson", e.metric); return scatter(e.metric + " against human " + m.human + ", per system", e.system.metric_scores, e.system.human_scores, e.system.systems,
                                                                       e.metric + " (system score)", "human " + m.human, c ? "significance cluster " + c + " by PERM-BOTH on Pearson" : "no significance test on Pearson in this report"); });
      add(el, [h("div", { class: "cards" }, figs)]);
    });
    M.averages.forEach(function (d) {
      Object.keys(d.averages || {}).forEach(function (scheme) {
        var avg = d.averages[scheme], tasks = avg.tasks || [];
        any = true;
        add(el, [h("h3", { id: "average-" + scheme }, scheme.toUpperCase() + " average over " + (d.lps || []).map(function (x) { return x.lp; }).join(", "))]);
        var ranks = avg.ranking.map(function (r) { return r.rank; });
        add(el, [plainTable(["metric", "rank", "average"].concat(tasks.map(function (t) { return t.name; })), avg.ranking.map(function (r) {
          return [r.metric, r.rank === null || r.rank === undefined ? "\u2013" : String(r.rank), r.value].concat(avg.task_values.map(function (tv) { return isNum(tv[r.metric]) ? tv[r.metric] : "\u2013"; }));
        }), { caption: scheme + " average", rowClass: function (i) { return i > 0 && ranks[i] !== ranks[i - 1] ? "cluster-start" : null; } })]);
        var notes = ["Weights: " + tasks.map(function (t) { return t.name + " " + fmt(t.weight, 3); }).join(", ") + "; each statistic mapped to [0, 1] from its range.",
                     avg.note ? "Rank: none (" + avg.note + ")." : "Rank: the significance cluster on the average (PERM-BOTH, " + avg.n_resamples + " resamples, seed " + avg.seed + ", alpha " + avg.alpha + "); double lines between clusters."];
        Object.keys(avg.excluded || {}).forEach(function (m) { notes.push(m + " not averaged: " + avg.excluded[m]); });
        notes.forEach(function (t) { add(el, [h("p", { class: "note" }, t)]); });
      });
    });
    M.spanF1.forEach(function (g) {  // --spans -f json: character-level span F1 of each predictor, overall and per system
      var d = g.data, cols = ["precision", "recall", "f1", "items", "gold_chars", "pred_chars"];
      any = true;
      add(el, [h("h3", null, "Error spans" + (fileName(g) ? " (" + g.name + ")" : "")), h("p", { class: "note" }, "Gold: " + d.gold + "; partial credit " + d.partial_credit + ".")]);
      (d.predictors || []).forEach(function (p) {
        var rows = [["overall", p.overall]].concat(Object.keys(p.systems || {}).map(function (s) { return [s, p.systems[s]]; }));
        add(el, [h("h4", null, p.predictor), plainTable(["system"].concat(cols), rows.map(function (r) {
          return [r[0]].concat(cols.map(function (c) { var v = r[1] ? r[1][c] : null; return isNum(v) ? (Number.isInteger(v) ? String(v) : fmt(v)) : "\u2013"; }));
        }), { caption: "Span F1 of " + p.predictor })]);
        var left = Object.keys(p.left_out || {});
        if (left.length) add(el, [h("p", { class: "note" }, "Left out: " + left.map(function (k) { return k + " (" + p.left_out[k] + ")"; }).join("; "))]);
      });
      (d.notes || []).forEach(function (t) { add(el, [h("p", { class: "note" }, t)]); });
    });
    M.sweeps.forEach(function (sw, si) { any = true; sweepView(el, sw, si); });
    if (!any) add(el, [h("p", null, "No meta-evaluation in this report (run with --human, --genmt, --mtme, or docmetrics sweep).")]);
  }
  function statOf(me, stat) {
    if (!me) return null;
    var key = String(stat).replace(/-/g, "_");
    if (me[key] !== undefined) return me[key];
    if (key.slice(0, 4) === "doc_" && me.document) return me.document[key.slice(4)];
    if (key.slice(0, 4) === "sys_" && me[key.slice(4)] !== undefined) return me[key.slice(4)];
    return null;
  }
  function sweepView(el, sw, si) {
    var pts = sw.points || [], names = pts.length ? Object.keys(pts[0].params) : [];
    add(el, [h("h3", null, "Sweep of " + sw.metric + " over " + sw.grid.join(" ") + ": " + sw.stat)]);
    if (names.length < 1) return;
    var px = names[0], py = names[1] || null;
    function uniq(k) { var v = []; pts.forEach(function (p) { if (v.indexOf(p.params[k]) < 0) v.push(p.params[k]); }); return v.sort(function (a, b) { return a < b ? -1 : a > b ? 1 : 0; }); }
    var xs = uniq(px), ys = py ? uniq(py) : [""];
    var cell = {};
    pts.forEach(function (p) { cell[p.params[px] + "\u0000" + (py ? p.params[py] : "")] = p; });
    var vals = pts.map(function (p) { return statOf(p.metaeval, sw.stat); }).filter(isNum);
    var lo = Math.min.apply(null, vals), hi = Math.max.apply(null, vals);
    var C = 46, W = 60 + xs.length * C, H = 40 + ys.length * C;
    var svg = s("svg", { viewBox: "0 0 " + W + " " + (H + 10), width: W, role: "img", "aria-label": "Heatmap of " + sw.stat + " over " + px + (py ? " and " + py : "") + "; the same grid follows as a table" });
    xs.forEach(function (x, i) { svg.appendChild(s("text", { x: 60 + i * C + C / 2 - 6, y: 14 }, px + "=" + x)); });
    ys.forEach(function (y, j) {
      if (py) svg.appendChild(s("text", { x: 2, y: 30 + j * C + C / 2 }, py + "=" + y));
      xs.forEach(function (x, i) {
        var p = cell[x + "\u0000" + y], v = p ? statOf(p.metaeval, sw.stat) : null, t = isNum(v) && hi > lo ? (v - lo) / (hi - lo) : 0.5;
        var fill = isNum(v) ? "hsl(" + Math.round(10 + 200 * t) + ", 70%, " + Math.round(45 + 10 * (1 - t)) + "%)" : "#999";
        svg.appendChild(s("rect", { x: 60 + i * C, y: 20 + j * C, width: C - 2, height: C - 2, fill: fill },
          s("title", null, px + "=" + x + (py ? ", " + py + "=" + y : "") + ": " + (isNum(v) ? fmt(v) : p ? (p.error || "undefined") : "not a grid point"))));
        svg.appendChild(s("text", { x: 60 + i * C + 4, y: 20 + j * C + C / 2 + 4, fill: "#000" }, isNum(v) ? fmt(v, 3) : "\u2013"));
      });
    });
    add(el, [h("figure", null, svg, h("figcaption", null, sw.stat + " from " + fmt(lo) + " (red) to " + fmt(hi) + " (blue); grey: no value"))]);
    add(el, [plainTable([py ? py + " \\ " + px : ""].concat(xs.map(function (x) { return px + "=" + x; })), ys.map(function (y) {
      return [py ? py + "=" + y : sw.stat].concat(xs.map(function (x) { var p = cell[x + "\u0000" + y], v = p ? statOf(p.metaeval, sw.stat) : null; return isNum(v) ? fmt(v) : p ? (p.error || "undefined") : "not a grid point"; }));
    }), { caption: "Sweep grid " + si })]);
  }

  // -- Exports ---------------------------------------------------------------------------------------
  function download(name, type, text) {
    var url = URL.createObjectURL(new Blob([text], { type: type })), a = h("a", { href: url, download: name });
    document.body.appendChild(a); a.click(); a.remove(); setTimeout(function () { URL.revokeObjectURL(url); }, 1000);
  }
  function cellTsv(v) { return v === null || v === undefined ? "nan" : String(v).replace(/[\t\r\n]/g, " "); }
  function tsv(level) {
    var head = { doc: ["system", "metric", "spec", "doc_id", "units", "score"],
                 chunk: ["system", "metric", "spec", "doc_id", "unit", "first_line", "last_line", "weight", "group", "truncated", "partial", "score"],
                 seg: ["system", "metric", "spec", "doc_id", "seg", "line", "score"] }[level];
    var out = [head.join("\t")];
    M.results.forEach(function (r) {
      var key = [r.system, r.metric, r.spec];
      if (level === "doc") { r.docs.forEach(function (d) { out.push(key.concat([d[0], d[2], d[1]]).map(cellTsv).join("\t")); }); return; }
      if (!r.units) return;
      var u = r.units, seen = {};
      for (var i = 0; i < u.doc.length; i++) {
        var id = r.docs[u.doc[i]][0], dk = M.docIndex[id], first = M.docs[dk] && M.docs[dk].start !== null ? M.docs[dk].start : 0;
        seen[id] = (seen[id] || 0) + 1;
        if (level === "seg") { if (u.end[i] - u.start[i] === 1) out.push(key.concat([id, u.start[i] - first + 1, u.start[i] + 1, u.score[i]]).map(cellTsv).join("\t")); }
        else out.push(key.concat([id, seen[id], u.start[i] + 1, u.end[i], u.weight ? u.weight[i] : 1, u.group ? u.group[i] : "",
                                  !!(u.truncated && u.truncated[i]), !!(u.partial && u.partial[i]), u.score[i]]).map(cellTsv).join("\t"));
      }
    });
    return out.join("\n") + "\n";
  }
  function latex() {
    function esc(t) { return String(t).replace(/([\\{}&%$#_^~])/g, function (c) { return c === "\\" ? "\\textbackslash{}" : c === "^" ? "\\^{}" : c === "~" ? "\\~{}" : "\\" + c; }); }
    var specs = M.specs.filter(function (sp) { return Object.keys(sp.bySystem).length; });
    var lines = ["\\begin{tabular}{l" + specs.map(function () { return "r"; }).join("") + "}", "\\hline",
                 ["System"].concat(specs.map(function (sp) { return esc(sp.spec); })).join(" & ") + " \\\\", "\\hline"];
    M.systems.forEach(function (n) { lines.push([esc(n)].concat(specs.map(function (sp) { var r = sp.bySystem[n]; return r ? fmt(r.score) + (r.ci ? " $\\pm$ " + fmt((r.ci.high - r.ci.low) / 2) : "") : "--"; })).join(" & ") + " \\\\"); });
    lines.push("\\hline", "\\end{tabular}");
    M.metaeval.forEach(function (g) {
      lines.push("", "\\begin{tabular}{lrrrr}", "\\hline", "Metric & Pearson & Spearman & Kendall & Accuracy \\\\", "\\hline");
      g.rows.forEach(function (r) { lines.push([esc(r.spec || r.metric), fmt(r.pearson), fmt(r.spearman), fmt(r.kendall), fmt(r.accuracy)].join(" & ") + " \\\\"); });
      lines.push("\\hline", "\\end{tabular}");
    });
    return lines.join("\n") + "\n";
  }
  function exportsView(el) {
    var items = [["report-data.json", "application/json", "The data this page was built from (rebuild it: docmetrics report report-data.json -o FILE.html)", function () { return document.getElementById("docmetrics-data").textContent; }]];
    D.sources.forEach(function (src, i) { items.push([((fileName(src) || "output").replace(/^.*[\/\\]/, "").replace(/\.[^.]*$/, "") || "output") + "-" + i + ".json", "application/json", "The " + KIND[src.layout] + " " + (fileName(src) ? "read from " + src.name : "the command wrote") + ", as it was read", function () { return JSON.stringify(src.data, null, 1) + "\n"; }]); });
    if (M.results.some(function (r) { return r.hasDocs; })) items.push(["docs.tsv", "text/tab-separated-values", "Per-document scores (the columns of --level doc)", function () { return tsv("doc"); }]);
    if (M.results.some(function (r) { return r.units && r.units.doc.length; })) {
      items.push(["chunks.tsv", "text/tab-separated-values", "Per-unit scores (the columns of --level chunk)", function () { return tsv("chunk"); }]);
      items.push(["segments.tsv", "text/tab-separated-values", "Per-segment scores of metrics with one segment per unit (--level seg)", function () { return tsv("seg"); }]);
    }
    if (M.specs.length || M.metaeval.length) items.push(["tables.tex", "application/x-tex", "LaTeX tables: systems by metric; meta-evaluation", latex]);
    add(el, [h("ul", { class: "exports-only" }, items.map(function (it) {
      return h("li", null, h("button", { type: "button", "data-export": it[0], onclick: function () { download(it[0], it[1], it[3]()); } }, "Download " + it[0]), " \u2013 " + it[2]);
    }))]);
  }

  var VIEWS = { overview: overview, documents: documents, document: documentView, judging: judging, exports: exportsView };
  window.addEventListener("hashchange", function () {
    var view = route(), hd = document.getElementById(view + "-h");
    if (hd) { hd.setAttribute("tabindex", "-1"); hd.focus({ preventScroll: false }); }
  });
  route();
  document.documentElement.setAttribute("data-ready", "1");
})();
