document.querySelectorAll("table.sortable th").forEach(function (th, index) {
  th.addEventListener("click", function () {
    var table = th.closest("table"), body = table.tBodies[0];
    var ascending = !th.classList.contains("sorted-asc");
    table.querySelectorAll("th").forEach(function (h) {
      h.classList.remove("sorted-asc", "sorted-desc");
    });
    th.classList.add(ascending ? "sorted-asc" : "sorted-desc");
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = a.cells[index], y = b.cells[index];
      var u = x.dataset.value !== undefined ? parseFloat(x.dataset.value) : NaN;
      var w = y.dataset.value !== undefined ? parseFloat(y.dataset.value) : NaN;
      var cmp = (!isNaN(u) || !isNaN(w))
        ? (isNaN(u) ? 1 : isNaN(w) ? -1 : u - w)
        : x.textContent.localeCompare(y.textContent);
      return ascending ? cmp : -cmp;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  });
});
// A table wider than its box: say so above it, with the columns out of view named.
function markWideTables() {
  document.querySelectorAll(".wide").forEach(function (box) {
    var hint = box.previousElementSibling;
    if (!hint || !hint.classList.contains("scroll-hint")) {
      hint = document.createElement("p");
      hint.className = "scroll-hint";
      box.parentNode.insertBefore(hint, box);
    }
    var right = box.getBoundingClientRect().right, hidden = [];
    box.querySelectorAll("thead th").forEach(function (th) {
      if (th.getBoundingClientRect().right > right + 1) hidden.push(th.textContent.trim());
    });
    hint.textContent = hidden.length ? "Scroll the table sideways for " + hidden.length +
      " more column(s): " + hidden.join(", ") + "." : "";
    hint.classList.toggle("shown", hidden.length > 0);
    box.setAttribute("data-hidden-columns", String(hidden.length));
  });
}
markWideTables();
window.addEventListener("resize", markWideTables);
document.body.setAttribute("data-sortable", "ready");
