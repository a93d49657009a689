// The console's one script: live rows on the flow page, the flow's charts (uPlot), the
// progress of an action, and the copy buttons of a message's raw JSON. Everything it puts on the page goes through textContent, never HTML.

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

  // Flow: the charts (uPlot) in a grid, each with a legend of values: the window's total (the
  // busiest slot for the quota), or the slot under the pointer.
  const charts = document.getElementById('charts');
  if (charts?.dataset.series && window.uPlot) {
    const groups = [
      { title: 'Sends (recipients)', series: ['accepted', 'scheduled', 'rejected', 'unknown'] },
      { title: 'Reports by outcome', series: ['delivered', 'failed'] },
      { title: 'Inbound and quarantined', series: ['inbound', 'quarantined'] },
      { title: 'TPS quota use (% of the quota, busiest second)', series: ['quotaPercent'] },
    ];
    const colours = ['#2b6cb0', '#805ad5', '#c53030', '#d69e2e'];
    const names = { quotaPercent: 'busiest second, % of the quota' };
    // The time axis in KST as the tables show times: "MM-DD HH:mm" where the date changes.
    const axisTimes = (_plot, splits) => {
      let day;
      return splits.map((seconds) => {
        const text = kst(new Date(seconds * 1000).toISOString());
        const date = text.slice(5, 10);
        const label = date === day ? text.slice(11, 16) : `${date} ${text.slice(11, 16)}`;
        day = date;
        return label;
      });
    };
    const plots = [];
    let latest;
    const widthOf = (box) => Math.max(260, box.clientWidth - 16);
    const legendOf = (group, plot, legend) => {
      const index = plot?.cursor.idx;
      const at = index === null || index === undefined ? undefined : latest.starts[index];
      legend.querySelector('.when').textContent =
        at === undefined
          ? `last ${latest.window}`
          : `at ${kst(new Date(at * 1000).toISOString()).slice(11, 16)} KST`;
      group.series.forEach((name, n) => {
        const values = latest.series[name];
        const value =
          at !== undefined
            ? values[index]
            : name === 'quotaPercent'
              ? Math.max(0, ...values)
              : values.reduce((sum, v) => sum + v, 0);
        legend.querySelectorAll('output')[n].textContent =
          name === 'quotaPercent' ? `${value} %` : String(value);
      });
    };
    const draw = async () => {
      const answer = await fetch(charts.dataset.series);
      if (!answer.ok) return;
      latest = await answer.json();
      groups.forEach((group, index) => {
        const values = [latest.starts, ...group.series.map((name) => latest.series[name])];
        const made = plots[index];
        if (made) {
          made.plot.setData(values);
          legendOf(group, made.plot, made.legend);
          return;
        }
        const box = document.createElement('figure');
        box.className = 'chart';
        box.dataset.chart = group.series.join(',');
        const caption = document.createElement('figcaption');
        caption.textContent =
          group.series[0] === 'quotaPercent' && latest.tpsQuota
            ? `${group.title} of ${latest.tpsQuota}/s`
            : group.title;
        box.appendChild(caption);
        const legend = document.createElement('ul');
        legend.className = 'legend';
        const when = document.createElement('li');
        when.className = 'when';
        legend.appendChild(when);
        group.series.forEach((name, n) => {
          const item = document.createElement('li');
          item.dataset.series = name;
          const swatch = document.createElement('span');
          swatch.className = 'swatch';
          swatch.style.background = colours[n];
          item.append(swatch, ` ${names[name] ?? name} `, document.createElement('output'));
          legend.appendChild(item);
        });
        charts.appendChild(box);
        const plot = new window.uPlot(
          {
            width: widthOf(box),
            height: 180,
            legend: { show: false },
            series: [
              {},
              ...group.series.map((name, at) => ({ label: name, stroke: colours[at], width: 2 })),
            ],
            axes: [{ values: axisTimes, space: 60 }, { size: 44 }],
            tzDate: (seconds) => window.uPlot.tzDate(new Date(seconds * 1000), 'Asia/Seoul'),
            hooks: { setCursor: [(u) => legendOf(group, u, legend)] },
          },
          values,
          box,
        );
        box.appendChild(legend);
        plots[index] = { plot, legend, box };
        legendOf(group, plot, legend);
      });
    };
    window.addEventListener('resize', () => {
      for (const { plot, box } of plots) plot.setSize({ width: widthOf(box), height: 180 });
    });
    draw().finally(() => setInterval(draw, 30000));
  }

  // A message's events: each raw JSON's copy button. The clipboard API needs a secure context,
  // which 127.0.0.1 and localhost are; where it is refused, the text is selected for Ctrl+C.
  for (const button of document.querySelectorAll('button.copy[data-copy]')) {
    button.addEventListener('click', async () => {
      const source = document.getElementById(button.dataset.copy);
      if (!source) return;
      try {
        await navigator.clipboard.writeText(source.textContent ?? '');
        button.textContent = 'Copied';
      } catch {
        source.closest('details')?.setAttribute('open', '');
        const range = document.createRange();
        range.selectNodeContents(source);
        const selection = window.getSelection();
        selection?.removeAllRanges();
        selection?.addRange(range);
        button.textContent = 'Selected: press Ctrl+C';
      }
      setTimeout(() => {
        button.textContent = 'Copy';
      }, 2000);
    });
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
