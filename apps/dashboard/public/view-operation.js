// One operation: live timeline, progress, summary, checks, findings, diff, transcript, actions.
import { api } from './api.js';
import { renderDeploy } from './card-deploy.js';
import { renderLedger } from './card-ledger.js';
import { renderPlanDecision } from './card-plan.js';
import { renderSteer } from './card-steer.js';
import { diffLoading, renderDiff } from './diff-view.js';
import {
  age,
  button,
  clock,
  coalesced,
  cost,
  duration,
  fill,
  h,
  notice,
  STATUS_LABELS,
  shortSha,
  sourceBadge,
  statusBadge,
  tokens,
} from './dom.js';
import { liveStream } from './live-stream.js';
import { renderFailureReport, runRecordPanel } from './run-record.js';
import { CHANGES_RECORD, currentStep, describeEvent, webLink } from './timeline.js';
import { renderTranscript, transcriptMissing } from './transcript-view.js';

/** Too frequent or too internal for the timeline; they still refresh the record. */
const QUIET_EVENTS = new Set(['usage', 'checkpoint']);

/**
 * The local forge's PR page is served by this API (it redirects people to the Changes tab):
 * link it on this origin, since the recorded URL names the address the process bound to.
 */
function pullRequestHref(url) {
  try {
    const u = new URL(url, location.href);
    return u.pathname.startsWith('/forge/') ? u.pathname : url;
  } catch {
    return url;
  }
}

function card(title, id, ...children) {
  return h('section', { class: 'card', id }, h('h2', { class: 'card-title' }, title), children);
}

/** The PR body's signed verification block, as the server checked it against the forge's copy. */
function renderVerification(v, op) {
  if (v === undefined) return h('p', { class: 'muted' }, 'Checking the signature…');
  if (v === null) return h('p', { class: 'muted' }, 'The verification block could not be checked.');
  if (!v.valid) return h('p', { class: 'bad' }, `Not valid: ${v.reason ?? 'the signature does not match'}.`);
  const b = v.block;
  const current = b.headSha === op.pullRequest?.headSha;
  return h(
    'div',
    {},
    h(
      'p',
      { class: current ? 'good' : 'bad' },
      current
        ? 'Signed by Pullwright for the current head.'
        : `Signed for ${b.headSha.slice(0, 7)}, not the current head.`,
    ),
    h(
      'ul',
      { class: 'plain' },
      b.checks.map((c) => h('li', {}, h('code', {}, c.command), ` exit ${c.exitCode ?? '–'} · ${c.durationMs} ms`)),
      h('li', {}, `secret scan: ${b.secretScan.passed ? 'clean' : `${b.secretScan.findings} finding(s)`}`),
    ),
  );
}

function renderRisk(risk) {
  if (risk === undefined || risk === null) return h('p', { class: 'muted' }, 'Not assessed yet.');
  if (typeof risk !== 'object') return h('p', {}, String(risk));
  const { level, reasons, stats } = risk;
  const size = stats
    ? `${stats.files} file${stats.files === 1 ? '' : 's'}, +${stats.additions} −${stats.deletions}`
    : undefined;
  return h(
    'div',
    {},
    h(
      'p',
      {},
      level ? h('span', { class: `risk risk-${level}` }, String(level)) : null,
      size ? h('span', { class: 'muted' }, ` · ${size}`) : null,
    ),
    Array.isArray(reasons) && reasons.length
      ? h(
          'ul',
          { class: 'plain' },
          reasons.map((r) => h('li', {}, String(r))),
        )
      : h('p', { class: 'muted' }, 'No risk factors found.'),
  );
}

function renderFindings(findings, op) {
  if (!findings.length) {
    const scanned = !['queued', 'running'].includes(op.status) && op.pullRequest;
    return h(
      'p',
      { class: scanned ? 'good-text' : 'muted' },
      scanned ? 'No findings: the diff passed the secret scan.' : 'None so far.',
    );
  }
  return h(
    'ul',
    { class: 'findings' },
    findings.map((f) => {
      if (typeof f !== 'object' || f === null) return h('li', {}, String(f));
      const where = [f.file ?? f.path, f.line].filter((x) => x !== undefined).join(':');
      return h(
        'li',
        {},
        h('strong', {}, String(f.rule ?? f.ruleId ?? f.kind ?? 'finding')),
        where ? h('code', {}, ` ${where}`) : null,
        f.message || f.description ? h('span', {}, ` — ${f.message ?? f.description}`) : null,
      );
    }),
  );
}

function testList(names, tone) {
  return h(
    'ul',
    { class: `tests tests-${tone}` },
    names.map((n) => h('li', {}, n)),
  );
}

/** For /debug: the tests that failed before the change and pass after it. */
function renderEvidence(evidence) {
  return h(
    'div',
    {},
    h(
      'p',
      { class: evidence.reproduced ? 'good-text' : 'warn-text' },
      evidence.reproduced
        ? 'Reproduced: these tests failed on the base branch and pass with the change.'
        : 'Not reproduced by a failing test.',
    ),
    evidence.red?.length ? [h('h3', {}, 'Failed before'), testList(evidence.red, 'red')] : null,
    evidence.green?.length ? [h('h3', {}, 'Pass after'), testList(evidence.green, 'green')] : null,
    evidence.note ? h('p', { class: 'muted' }, evidence.note) : null,
  );
}

function renderReview(review) {
  if (typeof review !== 'object' || review === null) return h('p', {}, String(review));
  const accepted = review.decision === 'accept';
  return h(
    'div',
    {},
    h(
      'p',
      { class: accepted ? 'good-text' : 'warn-text' },
      h('strong', {}, accepted ? 'Accepted' : 'Changes requested'),
      ' by the reviewer role',
    ),
    review.reasons?.length
      ? h(
          'ul',
          { class: 'bullets' },
          review.reasons.map((r) => h('li', {}, r)),
        )
      : null,
    titledBullets('Must fix', review.must_fix),
  );
}

/** A heading and its bullet list; nothing when the list is missing or empty. */
function titledBullets(title, items) {
  return items?.length
    ? [
        h('h3', {}, title),
        h(
          'ul',
          { class: 'bullets' },
          items.map((r) => h('li', {}, r)),
        ),
      ]
    : null;
}

function renderPlan(plan) {
  return h(
    'div',
    {},
    plan.plan_id ? h('p', { class: 'muted small' }, h('code', {}, plan.plan_id)) : null,
    Array.isArray(plan.steps)
      ? h(
          'ol',
          { class: 'plan-steps' },
          plan.steps.map((step) =>
            h(
              'li',
              { dataset: { task: step.id ?? '' } },
              h('strong', {}, step.id ? `${step.id} · ${step.title}` : step.title),
              step.files?.length
                ? h(
                    'span',
                    { class: 'plan-files' },
                    step.files.map((f) => h('code', {}, f)),
                  )
                : null,
              step.acceptance ? h('p', { class: 'muted small' }, `Done when: ${step.acceptance}`) : null,
            ),
          ),
        )
      : h('pre', { class: 'pre small' }, JSON.stringify(plan, null, 2)),
    titledBullets('Risks noted', plan.risks),
  );
}

/** The limits this operation runs under: its own overrides, else the service defaults. */
function budgetLine(own = {}, defaults) {
  if (!defaults) return null;
  const b = { ...defaults, ...own };
  const custom = Object.keys(own).length > 0;
  return h(
    'p',
    { class: 'muted small budget-line', id: 'budget' },
    `Budget${custom ? ' (set for this operation)' : ''}: ${b.turns} turns · ${cost(b.costUsd)} · ${duration(b.wallMs)} · ${tokens(b.tokens)} tokens`,
  );
}

function renderChecks(checks, op) {
  if (!checks.length) {
    return h(
      'p',
      { class: 'muted' },
      op.status === 'queued' || op.status === 'running'
        ? 'The checks run after the agent has made its changes.'
        : 'No checks ran.',
    );
  }
  return h(
    'ul',
    { class: 'checks' },
    checks.map((c) =>
      h(
        'li',
        { class: `check ${c.passed ? 'check-pass' : 'check-fail'}` },
        h(
          'details',
          {},
          h(
            'summary',
            {},
            h('span', { class: 'check-mark', 'aria-hidden': 'true' }, c.passed ? '✓' : '✗'),
            h('strong', {}, c.name),
            h('code', { class: 'muted' }, c.command),
            h('span', { class: 'spacer' }),
            c.preExisting
              ? h(
                  'span',
                  { class: 'tag', title: 'Failed on the base branch too: reported, not blocking' },
                  'pre-existing',
                )
              : null,
            h(
              'span',
              { class: 'muted' },
              `${c.passed ? 'passed' : `exit ${c.exitCode ?? '—'}`} · ${duration(c.durationMs)}`,
            ),
          ),
          c.failingTests?.length ? testList(c.failingTests, 'red') : null,
          h('pre', { class: 'pre small' }, c.output || '(no output)'),
        ),
      ),
    ),
  );
}

function renderBoard(board, op) {
  if (board === undefined) return h('p', { class: 'muted' }, 'Loading…');
  if (board === null) return h('p', { class: 'muted' }, 'The lock board could not be loaded.');
  const repo = (board.repos ?? []).find((r) => r.repo === op.repo);
  // Only what concerns this operation: entries that name it.
  const names = (i) => JSON.stringify(i).includes(op.id);
  const locks = (repo?.fileLocks ?? []).filter(names);
  const waiting = (repo?.waiting ?? []).filter(names);
  const overlaps = (repo?.overlaps ?? []).filter(names);
  const merging = repo?.mergeLock && repo.mergeLock.opId === op.id;
  if (!locks.length && !overlaps.length && !waiting.length && !merging) {
    return h('p', { class: 'muted' }, 'This operation holds no locks and overlaps no open branch.');
  }
  const item = (text) => h('li', {}, h('code', {}, text));
  return h(
    'div',
    {},
    merging ? h('p', {}, 'Holds the merge lock of this repository.') : null,
    locks.length
      ? [
          h('h3', {}, 'Files locked'),
          h(
            'ul',
            { class: 'plain' },
            locks.map((l) => item(l.path)),
          ),
        ]
      : null,
    waiting.length
      ? [
          h('h3', {}, 'Waiting on'),
          h(
            'ul',
            { class: 'plain' },
            waiting.map((w) => item(`${w.files.join(', ')} — held by ${w.holder}`)),
          ),
        ]
      : null,
    overlaps.length
      ? [
          h('h3', {}, 'Overlaps'),
          h(
            'ul',
            { class: 'plain' },
            overlaps.map((o) => item(`${o.files.join(', ')} — ${o.branches.map((b) => b.branch).join(' / ')}`)),
          ),
        ]
      : null,
  );
}

export function operationView(root, id, session, params = new URLSearchParams()) {
  document.title = `Operation ${id} · Pullwright`;
  fill(root, notice('loading', 'Loading the operation…'));

  let op;
  const events = [];
  const seen = new Set();
  let tab = params.get('tab') === 'changes' ? 'changes' : 'overview';
  /** The Changes tab shows the whole PR (null) or what changed since a sha (the interdiff). */
  let since = /^[0-9a-f]{7,64}$/.test(params.get('from') ?? '') ? params.get('from') : null;
  /** The head sha whose changes this page has shown: what an approval is for. */
  let shownSha;
  let diffSha;
  let board;
  let verification;
  let actionsKey = '';
  let closed = false;
  const record = runRecordPanel(id);

  const el = {
    status: h('div', { id: 'op-status', class: 'op-status' }),
    title: h('h1', { class: 'op-title' }),
    meta: h('div', { class: 'op-meta' }),
    description: h('div'),
    actions: h('div', { class: 'actions', id: 'actions' }),
    plan: h('div', { id: 'plan-slot' }),
    steer: h('div', { id: 'steer', class: 'steer' }),
    deploy: h('div', { id: 'deploy-slot' }),
    diffBar: h('div', { class: 'diff-bar', id: 'diff-bar' }),
    ledger: h('div', { id: 'op-ledger' }),
    diffBody: h('div', { id: 'diff-body' }),
    flash: h('div', { class: 'flash', role: 'status', 'aria-live': 'polite' }),
    tabs: h('div', { class: 'tabs', role: 'tablist' }),
    overview: h('div', { class: 'panel', id: 'panel-overview', role: 'tabpanel' }),
    changes: h('div', { class: 'panel', id: 'diff', role: 'tabpanel', hidden: true }),
    transcript: h('div', { class: 'panel', id: 'panel-transcript', role: 'tabpanel', hidden: true }),
    progress: h('div', { id: 'progress' }),
    usage: h('div', { id: 'usage' }),
    board: h('div', { id: 'board' }),
    timeline: h('ol', { class: 'timeline', id: 'timeline' }),
    timelineEmpty: h('p', { class: 'muted' }, 'Waiting for the first event…'),
  };

  function flash(kind, text) {
    fill(el.flash, h('p', { class: `flash-${kind}` }, text));
  }

  // --- header -----------------------------------------------------------------------------
  function renderHeader() {
    fill(
      el.status,
      statusBadge(op.status, 'large'),
      h('span', { class: `type type-${op.type}` }, op.type),
      h('code', { class: 'muted' }, op.id),
    );
    const [first, ...rest] = op.description.split('\n');
    el.title.textContent = first;
    fill(el.description, rest.join('\n').trim() ? h('p', { class: 'op-description' }, rest.join('\n').trim()) : '');
    fill(
      el.meta,
      h('span', { class: 'repo' }, op.repo),
      h('span', {}, h('code', {}, op.baseBranch), op.branch ? [' ← ', h('code', {}, op.branch)] : null),
      h('span', {}, 'by ', sourceBadge(op.requester)),
      op.origin && webLink(op.origin.url)
        ? h(
            'a',
            { href: webLink(op.origin.url), target: '_blank', rel: 'noopener noreferrer', class: 'origin-link' },
            `from issue #${op.origin.number}: ${op.origin.title}`,
          )
        : null,
      h('span', { title: new Date(op.createdAt).toLocaleString() }, `${age(op.createdAt)} ago`),
      op.pullRequest
        ? h(
            'a',
            {
              href: pullRequestHref(op.pullRequest.url),
              target: '_blank',
              rel: 'noopener noreferrer',
              class: 'pr-link',
            },
            `Pull request #${op.pullRequest.number}`,
          )
        : null,
    );
  }

  // --- actions ----------------------------------------------------------------------------
  async function act(label, request, after) {
    fill(el.flash);
    for (const b of el.actions.querySelectorAll('button')) b.disabled = true;
    try {
      const result = await request();
      flash('good', label);
      if (after) after(result);
      await refresh();
    } catch (err) {
      if (err.status === 409 && /moved/.test(err.message)) {
        flash('bad', `${err.message}. Review the new changes before approving.`);
      } else {
        flash('bad', err.message);
      }
      actionsKey = '';
      renderActions();
    }
  }

  function renderActions() {
    const head = op.pullRequest?.headSha;
    const key = [op.status, head, shownSha, op.cancelRequested].join('|');
    if (key === actionsKey) return;
    actionsKey = key;
    const parts = [];
    if (op.status === 'awaiting_approval' && head) {
      const moved = shownSha && shownSha !== head;
      if (moved) {
        parts.push(
          h(
            'p',
            { class: 'warn-text' },
            `The branch moved to ${shortSha(head)} since you looked at ${shortSha(shownSha)}. `,
            button('Show the new changes', () => showTab('changes', true), 'small'),
          ),
        );
      }
      const approve = button(
        `Approve ${shortSha(shownSha ?? head)}`,
        () =>
          act('Approved. Merging…', () => api('POST', `/v1/operations/${id}/approve`, { headSha: shownSha ?? head })),
        'primary',
        { id: 'approve', dataset: { sha: shownSha ?? head } },
      );
      const reject = button('Reject…', () => openReject(), 'danger-outline', { id: 'reject' });
      if (!session.canApprove) {
        approve.disabled = true;
        reject.disabled = true;
        parts.push(approve, reject, h('p', { class: 'muted small' }, `${session.user} is not on the approver list.`));
      } else {
        parts.push(approve, reject);
      }
    }
    if (op.status === 'queued' || op.status === 'running') {
      parts.push(
        button(
          op.cancelRequested ? 'Cancelling…' : 'Cancel',
          () => act('Cancel requested.', () => api('POST', `/v1/operations/${id}/cancel`, {})),
          'danger-outline',
          {
            id: 'cancel',
            disabled: op.cancelRequested,
          },
        ),
      );
    }
    if (op.status === 'failed' || op.status === 'cancelled') {
      parts.push(
        button(
          'Retry',
          () =>
            act(
              'Retry started.',
              () => api('POST', `/v1/operations/${id}/retry`, {}),
              (created) => {
                location.hash = `#/op/${created.id}`;
              },
            ),
          'primary',
          { id: 'retry' },
        ),
      );
    }
    fill(el.actions, ...parts);
    el.actions.hidden = parts.length === 0;
  }

  // --- steering: the plan, a message or a change request, a deploy ---------------------------
  let steerKey = '';
  function renderSteering() {
    const key = [
      op.status,
      op.cancelRequested,
      op.pullRequest?.number,
      op.planConfirmation?.state,
      op.deploy?.status,
    ].join('|');
    if (key === steerKey) return;
    steerKey = key;
    const by = (path, body, done) => act(done, () => api('POST', `/v1/operations/${id}/${path}`, body));
    fill(
      el.plan,
      renderPlanDecision(op, {
        onStart: () => by('plan', { decision: 'start' }, 'Plan started: the coder is working.'),
        onModify: (note) => by('plan', { decision: 'modify', note }, 'Plan modified: the coder works with your note.'),
        onCancel: () => by('cancel', {}, 'Cancel requested.'),
      }),
    );
    fill(
      el.steer,
      renderSteer(op, {
        onMessage: (text, clear) =>
          act('Sent: the model reads it before its next step.', async () => {
            await api('POST', `/v1/operations/${id}/messages`, { text });
            clear();
          }),
        onRevise: (instruction, clear) =>
          act('Changes requested: a revision is on its way.', async () => {
            await api('POST', `/v1/operations/${id}/revise`, { instruction });
            clear();
          }),
      }),
    );
    fill(el.deploy, renderDeploy(op, { onDeploy: () => by('deploy', {}, 'Deploy started.') }));
  }

  function openReject() {
    const reason = h('textarea', {
      id: 'reject-reason',
      rows: '3',
      placeholder: 'What should change? (optional)',
      maxlength: '2000',
    });
    const confirm = button(
      'Reject',
      () =>
        act('Rejected.', () =>
          api('POST', `/v1/operations/${id}/reject`, reason.value.trim() ? { reason: reason.value.trim() } : {}),
        ),
      'danger',
      { id: 'reject-confirm' },
    );
    const back = button(
      'Keep it',
      () => {
        actionsKey = '';
        renderActions();
      },
      'ghost',
    );
    fill(
      el.actions,
      h(
        'div',
        { class: 'reject-form' },
        h('label', { for: 'reject-reason' }, 'Reason for rejecting'),
        reason,
        h('div', { class: 'row' }, confirm, back),
      ),
    );
    reason.focus();
  }

  // --- overview ---------------------------------------------------------------------------
  let overviewKey = '';
  function renderOverview() {
    const key = JSON.stringify([
      op.plan,
      op.summary,
      op.review,
      op.evidence,
      op.error,
      op.failureReport,
      op.checks,
      op.findings,
      op.risk,
      op.filesChanged,
      op.status,
    ]);
    if (key === overviewKey) return;
    overviewKey = key;
    const text = op.summary || (typeof op.plan === 'string' ? op.plan : op.plan?.summary);
    const summary = text
      ? h('p', { class: 'summary-text' }, text)
      : h(
          'p',
          { class: 'muted' },
          ['queued', 'running'].includes(op.status)
            ? 'The agent writes its summary when it finishes.'
            : 'No summary was recorded.',
        );
    fill(
      el.overview,
      op.error && ['failed', 'cancelled', 'rejected'].includes(op.status)
        ? card(
            op.status === 'failed' ? 'Why it failed' : op.status === 'rejected' ? 'Rejected' : 'Cancelled',
            'op-error',
            h('pre', { class: 'pre bad' }, op.error),
          )
        : null,
      op.failureReport ? card('Failure report', 'op-failure-report', renderFailureReport(op.failureReport)) : null,
      card('Summary', 'op-summary', summary),
      op.evidence ? card('Evidence', 'op-evidence', renderEvidence(op.evidence)) : null,
      card('Checks', 'op-checks', renderChecks(op.checks, op)),
      op.pullRequest ? card('Verification', 'op-verification', renderVerification(verification, op)) : null,
      h(
        'div',
        { class: 'two' },
        card('Secret scan', 'op-findings', renderFindings(op.findings, op)),
        card('Risk', 'op-risk', renderRisk(op.risk)),
      ),
      op.review ? card('Review', 'op-review', renderReview(op.review)) : null,
      op.plan && typeof op.plan === 'object' ? card('Plan', 'op-plan', renderPlan(op.plan)) : null,
      op.filesChanged.length
        ? card(
            'Files changed',
            'op-files',
            h(
              'ul',
              { class: 'plain files' },
              op.filesChanged.map((f) => h('li', {}, h('code', {}, f))),
            ),
          )
        : null,
    );
  }

  // --- side column ------------------------------------------------------------------------
  function renderProgress() {
    const step = currentStep(op, events);
    const now = Date.now();
    const elapsed = (step.until ? Date.parse(step.until) : now) - Date.parse(step.since);
    const quiet = now - Date.parse(step.lastOutput);
    fill(
      el.progress,
      h(
        'p',
        { class: `step ${step.active ? 'step-active' : ''}` },
        step.active ? h('span', { class: 'pulse', 'aria-hidden': 'true' }) : null,
        step.label,
      ),
      step.detail ? h('p', { class: 'muted small' }, step.detail) : null,
      h(
        'dl',
        { class: 'kv' },
        h('dt', {}, step.active ? 'For' : 'Took'),
        h('dd', { id: 'elapsed' }, duration(elapsed)),
        step.quiet
          ? [
              h('dt', {}, 'Last output'),
              h('dd', { class: quiet > 120_000 ? 'warn-text' : '' }, `${duration(quiet)} ago`),
            ]
          : null,
      ),
    );
  }

  function renderUsage() {
    const u = op.usage;
    fill(
      el.usage,
      h(
        'dl',
        { class: 'kv' },
        h('dt', {}, 'Tokens in'),
        h('dd', { class: 'num' }, tokens(u.inputTokens)),
        h('dt', {}, 'Tokens out'),
        h('dd', { class: 'num' }, tokens(u.outputTokens)),
        h('dt', {}, 'Model calls'),
        h('dd', { class: 'num' }, String(u.modelCalls)),
        h('dt', {}, 'Cost'),
        h('dd', { class: 'num', id: 'cost' }, cost(u.costUsd)),
        u.wallTimeMs ? [h('dt', {}, 'Wall time'), h('dd', { class: 'num' }, duration(u.wallTimeMs))] : null,
      ),
      budgetLine(op.budget, session.budget),
    );
  }

  function appendEvent(e) {
    if (QUIET_EVENTS.has(e.type)) return;
    const d = describeEvent(e);
    el.timelineEmpty.remove();
    // Newest first: what is happening now is always in view, with no scrolling to manage.
    el.timeline.prepend(
      h(
        'li',
        { class: `ev ev-${d.tone}`, dataset: { type: e.type, ...(e.data?.to ? { to: e.data.to } : {}) } },
        h('time', { datetime: e.ts }, clock(e.ts)),
        d.link ? h('a', { href: d.link }, d.text) : h('span', {}, d.text),
      ),
    );
  }

  // --- tabs -------------------------------------------------------------------------------
  const tabButtons = {};
  function renderTabs() {
    const files = op.filesChanged.length;
    const labels = {
      overview: 'Overview',
      changes: files ? `Changes (${files})` : 'Changes',
      transcript: 'Transcript',
    };
    for (const [name, label] of Object.entries(labels)) {
      tabButtons[name] ??= h('button', {
        type: 'button',
        role: 'tab',
        id: `tab-${name}`,
        class: 'tab',
        onclick: () => showTab(name),
      });
      tabButtons[name].textContent = label;
      tabButtons[name].setAttribute('aria-selected', String(tab === name));
    }
    if (!el.tabs.childElementCount) el.tabs.append(...Object.values(tabButtons));
  }

  /** The last head someone reviewed (an approval, else the head a change request was made on). */
  function lastReviewed() {
    const head = op.pullRequest?.headSha;
    const approved = (op.approvals ?? []).map((a) => a.headSha).filter((sha) => sha !== head);
    if (approved.length) return approved.at(-1);
    return [...(op.ledger ?? [])].reverse().find((r) => r.state === 'pushed' && r.fromSha && r.fromSha !== head)
      ?.fromSha;
  }

  function renderDiffBar() {
    const reviewed = lastReviewed();
    const mode = (label, from, extra = {}) =>
      button(label, () => showSince(from), since === from ? 'small primary' : 'small ghost', {
        'aria-pressed': String(since === from),
        ...extra,
      });
    fill(
      el.diffBar,
      mode('All changes', null, { id: 'diff-all' }),
      reviewed || since
        ? mode(`Since last review (${shortSha(since ?? reviewed)})`, since ?? reviewed, { id: 'diff-since' })
        : null,
    );
    fill(
      el.ledger,
      op.ledger?.length ? card('Review ledger', 'ledger-card', renderLedger(op.ledger, showSince)) : null,
    );
  }

  function showSince(from) {
    since = from;
    loadDiff(true);
  }

  let diffKey = '';
  async function loadDiff(force = false) {
    const head = op.pullRequest?.headSha ?? null;
    renderDiffBar();
    const key = `${head}|${since}`;
    if (!force && diffKey === key && el.diffBody.childElementCount) return;
    diffKey = key;
    diffLoading(el.diffBody);
    try {
      const diff = since
        ? await api('GET', `/v1/operations/${id}/interdiff?from=${since}`)
        : await api('GET', `/v1/operations/${id}/diff`);
      if (since) {
        diff.headSha = diff.to;
        diff.since = diff.from;
      }
      diffSha = diff.headSha;
      if (diff.headSha) shownSha = diff.headSha;
      renderDiff(el.diffBody, diff, op);
      renderActions();
    } catch (err) {
      fill(
        el.diffBody,
        notice(
          'error',
          'The diff could not be loaded',
          err.message,
          button('Try again', () => loadDiff(true)),
        ),
      );
    }
  }

  async function loadTranscript() {
    fill(el.transcript, notice('loading', 'Loading the transcript…'));
    try {
      const text = await api('GET', `/v1/operations/${id}/transcript`);
      renderTranscript(el.transcript, String(text ?? ''), loadTranscript);
    } catch (err) {
      if (err.status === 404) transcriptMissing(el.transcript, op);
      else
        fill(
          el.transcript,
          notice('error', 'The transcript could not be loaded', err.message, button('Try again', loadTranscript)),
        );
    }
  }

  function showTab(name, force = false) {
    tab = name;
    el.overview.hidden = name !== 'overview';
    el.changes.hidden = name !== 'changes';
    el.transcript.hidden = name !== 'transcript';
    renderTabs();
    if (name === 'changes') loadDiff(force);
    else if (op) renderDiffBar();
    if (name === 'transcript') loadTranscript();
  }

  async function loadVerification() {
    if (!op?.pullRequest) return;
    try {
      verification = await api('GET', `/v1/operations/${id}/verification`);
    } catch {
      verification = null;
    }
    const slot = document.getElementById('op-verification');
    if (slot) fill(slot, h('h2', { class: 'card-title' }, 'Verification'), renderVerification(verification, op));
  }

  async function loadBoard() {
    try {
      board = await api('GET', `/v1/board?repo=${encodeURIComponent(op.repo)}`);
    } catch {
      board = null;
    }
    fill(el.board, renderBoard(board, op));
  }

  // --- data -------------------------------------------------------------------------------
  function update(next) {
    const statusChanged = op?.status !== next.status;
    op = next;
    // Watching live counts as seeing it: the first head sha is the one on screen.
    if (!shownSha && op.pullRequest?.headSha && tab !== 'changes') shownSha = op.pullRequest.headSha;
    renderHeader();
    renderActions();
    renderSteering();
    renderDiffBar();
    renderOverview();
    renderProgress();
    renderUsage();
    renderTabs();
    record.refresh();
    if (tab === 'changes' && op.pullRequest?.headSha && diffSha === null) loadDiff();
    if (statusChanged && board !== undefined) loadBoard();
    if (statusChanged && next.pullRequest) loadVerification();
    // A flash about the last action ("Approved. Merging…") is stale once the operation ended.
    if (statusChanged && ['merged', 'failed', 'cancelled', 'rejected'].includes(op.status)) fill(el.flash);
    document.title = `${STATUS_LABELS[op.status]} · ${op.description.split('\n')[0].slice(0, 60)} · Pullwright`;
  }

  const refresh = coalesced(async () => {
    try {
      const next = await api('GET', `/v1/operations/${id}`);
      if (!closed && (!op || next.version !== op.version)) update(next);
    } catch (err) {
      if (err.status && err.status !== 401 && !closed) flash('bad', `Could not refresh: ${err.message}`);
    }
  });
  let refreshTimer;
  const scheduleRefresh = () => {
    clearTimeout(refreshTimer);
    refreshTimer = setTimeout(refresh, 150);
  };

  let stopStream = () => {};
  function connect() {
    stopStream = liveStream({
      // Resumes after the last event this page holds (?after=), so nothing is lost or repeated.
      url: () => {
        const last = events.at(-1)?.id;
        return `/v1/operations/${id}/events${last ? `?after=${encodeURIComponent(last)}` : ''}`;
      },
      event: 'operation',
      onEvent: (e) => {
        if (seen.has(e.id)) return;
        seen.add(e.id);
        events.push(e);
        appendEvent(e);
        if (CHANGES_RECORD[e.type]) scheduleRefresh();
        else renderProgress();
      },
    });
  }

  (async () => {
    try {
      op = await api('GET', `/v1/operations/${id}`);
    } catch (err) {
      if (err.status === 401) return;
      fill(
        root,
        err.status === 404
          ? notice(
              'empty',
              'Operation not found',
              `There is no operation ${id}.`,
              h('a', { href: '#/', class: 'btn' }, 'All operations'),
            )
          : notice(
              'error',
              'The operation could not be loaded',
              err.message,
              button('Try again', () => operationView(root, id, session)),
            ),
      );
      return;
    }
    if (closed) return;
    shownSha = op.pullRequest?.headSha;
    fill(
      root,
      h(
        'div',
        { class: 'page' },
        h('a', { href: '#/', class: 'back' }, '← Operations'),
        h(
          'header',
          { class: 'op-header card' },
          h('div', { class: 'op-header-main' }, el.status, el.title, el.meta, el.description),
          el.actions,
          el.plan,
          el.steer,
          el.deploy,
        ),
        el.flash,
        h(
          'div',
          { class: 'op-grid' },
          h('div', { class: 'op-main' }, el.tabs, el.overview, el.changes, el.transcript),
          h(
            'aside',
            { class: 'op-side' },
            card('Now', 'op-progress', el.progress),
            card('Usage', 'op-usage', el.usage),
            card('Timeline · newest first', 'op-timeline', el.timelineEmpty, el.timeline),
            card('Locks and overlaps', 'op-board', el.board),
            card('Run record', 'op-run-record', record.element),
          ),
        ),
      ),
    );
    fill(el.changes, el.diffBar, el.ledger, el.diffBody);
    update(op);
    // The first render is not a status change: load the verification block now (it used to
    // wait for the next status, so a freshly opened operation stayed on "Checking…").
    loadVerification();
    if (tab !== 'overview') showTab(tab);
    loadBoard();
    connect();
  })();

  const ticker = setInterval(() => op && renderProgress(), 1000);
  return () => {
    closed = true;
    stopStream();
    clearTimeout(refreshTimer);
    clearInterval(ticker);
  };
}
