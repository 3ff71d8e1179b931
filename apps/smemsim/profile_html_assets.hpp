// The source view's style and its one script (profile_html.cpp), inline: the page stays one file
// that fetches nothing.
#pragma once

namespace smemsim::cli {

inline constexpr const char* kProfileStyle = R"(
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222;max-width:1400px}
h1{font-size:20px;margin:0 0 .3em} h2{font-size:16px;margin:1.4em 0 .4em}
.sum td{padding:1px 12px 1px 0} .sum td:first-child{color:#555}
table.src{border-collapse:collapse;font:12.5px/1.35 ui-monospace,monospace;width:100%}
table.src td{padding:0 6px;vertical-align:top;white-space:pre}
table.src th{font:600 12px system-ui,sans-serif;text-align:right;padding:2px 6px;border-bottom:1px solid #999;position:sticky;top:0;background:#fff}
table.src th.s{cursor:pointer} table.src th.s[data-on="1"]::after{content:" \25BE"}
td.n{color:#888;text-align:right} td.v{text-align:right;color:#333} table.src td.code{white-space:pre-wrap}
td.code{white-space:pre-wrap;width:100%} tr.hint td{color:#8a3b00;font-style:italic;padding-bottom:3px;white-space:pre-wrap}
tr.hot td.code{font-weight:600} .key span{display:inline-block;width:14px;height:10px;margin:0 4px 0 10px}
details{margin-top:1.2em} summary{cursor:pointer;font-weight:600}
)";

// Sortable columns (issue 47): a click on a numeric column's header (class "s") sorts its table by
// that column, largest first, a line's hint row staying under it; a second click puts the source
// order back. A link ending in #sort=NAME (a header's text: stalls, conflicts, ...) opens sorted.
// Without scripts the page reads as before, in source order.
inline constexpr const char* kProfileScript = R"(
(function () {
  function num(td) {
    var m = (td ? td.textContent : '').replace(/,/g, '').match(/-?[0-9]+(\.[0-9]+)?/);
    return m ? parseFloat(m[0]) : -Infinity;
  }
  function sort(th) {
    var table = th.closest('table'), col = th.cellIndex, groups = [];
    var rows = Array.prototype.slice.call(table.rows, 1);
    if (!rows.length) return;
    rows.forEach(function (r) {
      if (r.className == 'hint' && groups.length) groups[groups.length - 1].push(r);
      else groups.push([r]);
    });
    groups.forEach(function (g, i) { if (g[0].dataset.i === undefined) g[0].dataset.i = i; });
    var on = th.dataset.on != '1';
    Array.prototype.forEach.call(th.parentNode.cells, function (c) { c.dataset.on = ''; });
    th.dataset.on = on ? '1' : '';
    groups.sort(function (a, b) {
      var d = on ? num(b[0].cells[col]) - num(a[0].cells[col]) : 0;
      return d > 0 || d < 0 ? d : a[0].dataset.i - b[0].dataset.i;
    });
    var body = rows[0].parentNode;
    groups.forEach(function (g) { g.forEach(function (r) { body.appendChild(r); }); });
  }
  var heads = document.querySelectorAll('table.src th.s');
  Array.prototype.forEach.call(heads, function (th) { th.onclick = function () { sort(th); }; });
  var m = location.hash.match(/^#sort=(.+)$/);
  if (m) Array.prototype.forEach.call(heads, function (th) {
    if (th.textContent == decodeURIComponent(m[1])) sort(th);
  });
})();
)";

}  // namespace smemsim::cli
