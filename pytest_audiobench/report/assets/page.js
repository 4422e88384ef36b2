// pytest-audiobench HTML report: filter the samples by outcome, task and text.
(function () {
  "use strict";
  var rows = Array.prototype.slice.call(document.querySelectorAll("details.sample"));
  var texts = rows.map(function (row) { return row.textContent.toLowerCase(); });
  var boxes = Array.prototype.slice.call(document.querySelectorAll("input[name=kind]"));
  var task = document.getElementById("task");
  var text = document.getElementById("text");
  var shown = document.getElementById("shown");
  function apply() {
    var kinds = {};
    boxes.forEach(function (box) { kinds[box.value] = box.checked; });
    var wanted = task ? task.value : "";
    var needle = text ? text.value.trim().toLowerCase() : "";
    var count = 0;
    rows.forEach(function (row, index) {
      var visible = kinds[row.dataset.kind] !== false &&
        (!wanted || row.dataset.task === wanted) &&
        (!needle || texts[index].indexOf(needle) !== -1);
      row.hidden = !visible;
      if (visible) { count += 1; }
    });
    if (shown) { shown.textContent = count + " of " + rows.length + " shown"; }
  }
  boxes.forEach(function (box) { box.addEventListener("change", apply); });
  if (task) { task.addEventListener("change", apply); }
  if (text) { text.addEventListener("input", apply); }
  apply();
}());
