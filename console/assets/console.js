// The console's one script: live rows on the flow page, the flow's charts (uPlot), and the
// progress of an action. Everything it puts on the page goes through textContent, never HTML.

(() => {
  const cell = (row, text, tag = 'td') => {
    const element = document.createElement(tag);
    element.textContent = text;
    row.appendChild(element);
    return element;
  };
  // KST (UTC+9, no daylight saving time), as the server renders times; UTC on hover.
  const kst = (iso) =>
    new Date(Date.parse(iso) + 9 * 3_600_000).toISOString().replace('T', ' ').replace('Z', ' KST');
  const utc = (iso) =>
    new Date(Date.parse(iso)).toISOString().replace('T', ' ').replace('Z', ' UTC');
  const timeCell = (row, iso) => {
    const element = cell(row, iso && !Number.isNaN(Date.parse(iso)) ? kst(iso) : (iso ?? '—'));
    if (iso && !Number.isNaN(Date.parse(iso))) element.title = utc(iso);
    return element;
  };

  // Flow: events as they are published.
  const table = document.getElementById('flow-events');
  if (table?.dataset.live) {
    const body = table.querySelector('tbody');
    let after = Number(table.dataset.after || 0);
    const poll = async () => {
      const query = new URLSearchParams({ after: String(after) });
      if (table.dataset.type) query.set('type', table.dataset.type);
      if (table.dataset.code) query.set('code', table.dataset.code);
      try {
        const answer = await fetch(`${table.dataset.live}?${query}`);
        if (answer.ok) {
          const page = await answer.json();
          for (const event of page.events) {
            const row = document.createElement('tr');
            row.dataset.line = String(event.line);
            row.dataset.detailType = event.detailType;
            row.className = 'new';
            timeCell(row, event.time);
            cell(
              row,
              event.replayName
                ? `${event.detailType} (replay ${event.replayName})`
                : event.detailType,
            );
            cell(row, event.code ?? '');
            const keys = cell(row, '');
            for (const value of Object.values(event.keys)) {
              const link = document.createElement('a');
              link.href = `/console/message?by=key&q=${encodeURIComponent(value)}`;
              link.textContent = value;
              keys.append(link, ' ');
            }
            const id = cell(row, '');
            const code = document.createElement('code');
            code.textContent = event.id ?? '';
            id.appendChild(code);
            body.insertBefore(row, body.firstChild);
          }
          while (body.children.length > 300) body.removeChild(body.lastChild);
          after = page.last;
        }
      } finally {
        setTimeout(poll, 2000);
      }
    };
    setTimeout(poll, 2000);
  }

  // Flow: per-minute charts.
  const charts = document.getElementById('charts');
  if (charts?.dataset.series && window.uPlot) {
    const groups = [
      { title: 'Sends (recipients)', series: ['accepted', 'scheduled', 'rejected', 'unknown'] },
      { title: 'Reports by outcome', series: ['delivered', 'failed'] },
      { title: 'Inbound and quarantined', series: ['inbound', 'quarantined'] },
      { title: 'TPS quota use (% of the quota, busiest second)', series: ['quotaPercent'] },
    ];
    const colours = ['#2b6cb0', '#805ad5', '#c53030', '#d69e2e'];
    const plots = [];
    const draw = async () => {
      const answer = await fetch(charts.dataset.series);
      if (!answer.ok) return;
      const data = await answer.json();
      groups.forEach((group, index) => {
        const values = [data.minutes, ...group.series.map((name) => data.series[name])];
        if (plots[index]) {
          plots[index].setData(values);
          return;
        }
        const box = document.createElement('figure');
        box.className = 'chart';
        box.dataset.chart = group.series.join(',');
        const caption = document.createElement('figcaption');
        caption.textContent =
          group.series[0] === 'quotaPercent' && data.tpsQuota
            ? `${group.title} of ${data.tpsQuota}/s`
            : group.title;
        box.appendChild(caption);
        charts.appendChild(box);
        plots[index] = new window.uPlot(
          {
            width: 520,
            height: 180,
            series: [
              {},
              ...group.series.map((name, at) => ({ label: name, stroke: colours[at], width: 2 })),
            ],
            axes: [{}, { size: 40 }],
            // The time axis and the legend in KST, 24-hour, as the tables show times.
            tzDate: (seconds) => window.uPlot.tzDate(new Date(seconds * 1000), 'Asia/Seoul'),
            fmtDate: (template) =>
              window.uPlot.fmtDate(
                template
                  .replace(/\{h\}/g, '{HH}')
                  .replace(/\s*\{aa\}/g, '')
                  .replace('{M}/{D}/{YY}', '{YYYY}-{MM}-{DD}')
                  .replace('{M}/{D}', '{MM}-{DD}'),
              ),
          },
          values,
          box,
        );
      });
    };
    draw().finally(() => setInterval(draw, 30000));
  }

  // An action's progress.
  const job = document.getElementById('job');
  if (job?.dataset.poll && job.dataset.state === 'running') {
    const bar = document.getElementById('job-progress');
    const poll = async () => {
      const answer = await fetch(job.dataset.poll);
      if (answer.ok) {
        const state = await answer.json();
        job.dataset.state = state.state;
        document.getElementById('job-state').textContent = state.state;
        document.getElementById('job-done').textContent = String(state.done);
        document.getElementById('job-total').textContent =
          state.total === null ? '?' : String(state.total);
        document.getElementById('job-message').textContent = state.message ?? '';
        bar.max = state.total || 1;
        bar.value = state.total === null ? 0 : state.done;
        if (state.state !== 'running') return;
      }
      setTimeout(poll, 500);
    };
    setTimeout(poll, 300);
  }
})();
