// The report page's chart: reads the JSON data block written by render-html.ts and draws it with chart.js
// (served by the service itself at /assets/chart.umd.min.js). No inline script, no network.
(() => {
  var data = JSON.parse(document.getElementById('chart-data').textContent);
  var canvas = document.getElementById('pnl-chart');
  if (!window.Chart || !canvas) return;
  var money = (v) => {
    var text = Math.abs(v).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    return v < 0 ? `(${text})` : text;
  };
  new window.Chart(canvas, {
    data: {
      labels: data.labels,
      datasets: [
        { type: 'bar', label: 'Income', data: data.income, backgroundColor: '#2e7d32', order: 2 },
        { type: 'bar', label: 'Expenses', data: data.expenses, backgroundColor: '#c62828', order: 2 },
        {
          type: 'line',
          label: 'Net Income',
          data: data.netIncome,
          borderColor: '#1565c0',
          backgroundColor: '#1565c0',
          borderWidth: 3,
          pointRadius: 4,
          tension: 0,
          order: 1,
        },
      ],
    },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      interaction: { mode: 'index', intersect: false },
      scales: { y: { beginAtZero: true, ticks: { callback: money } } },
      plugins: {
        legend: {
          position: 'bottom',
          labels: {
            sort: (a, b) => a.datasetIndex - b.datasetIndex,
          },
        },
        tooltip: {
          callbacks: {
            label: (ctx) => `${ctx.dataset.label}: ${money(ctx.parsed.y)}`,
          },
        },
      },
    },
  });
})();
