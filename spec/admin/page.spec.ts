import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import type { ScriptStep } from '../../fixtures/model-server';
import { ask, mcpRig } from '../e2e/mcp-gateway';
import { programPath } from '../system-programs';

const KEY = 'page-admin-key-0123456789abcdef';
process.env.TEST_PAGE_ADMIN_KEY = KEY;
const bindings = [
  {
    name: 'notes',
    match: { model: 'agent-*' },
    hierarchy: [{ tool: 'notes_open', children: ['notes_read'] }, 'fails'],
  },
];
/** where the last run's screenshot is, to look at on a 1366x768 screen */
const SCREENSHOT = path.join(os.tmpdir(), 'agent-loop-admin-page.png');

describe('the admin page in a real browser (Debian chromium, puppeteer-core)', () => {
  const rig = mcpRig();
  let browser: Browser;
  let profile: string;

  beforeAll(async () => {
    profile = mkdtempSync(path.join(os.tmpdir(), 'agent-loop-chromium-'));
    browser = await puppeteer.launch({
      executablePath: programPath('chromium'),
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        `--user-data-dir=${profile}`,
      ],
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    rmSync(profile, { recursive: true, force: true });
  });

  async function openPage(url: string): Promise<{ page: Page; problems: string[] }> {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(String(error)));
    page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
    await page.setViewport({ width: 1366, height: 768 });
    await page.goto(`${url}/admin`, { waitUntil: 'load' });
    return { page, problems };
  }

  it('opens with the key, changes a setting, and shows a loop running, then finished on the timeline with its failure marked', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const script = async (body: { messages: { role: string }[] }): Promise<ScriptStep> => {
      if (!body.messages.some((m) => m.role === 'tool'))
        return { toolCalls: [{ name: 'notes_open' }, { name: 'fails' }] };
      await held;
      return { content: 'You have three notes; one tool failed.' };
    };
    const { url, client, loop } = await rig.gateway(script, { bindings, admin: { keyEnv: 'TEST_PAGE_ADMIN_KEY' } });
    const { page, problems } = await openPage(url);
    expect(page.url()).toBe(`${url}/admin/`);

    await page.waitForSelector('#login:not([hidden])');
    await page.type('#key', KEY);
    await page.click('#login-form button[type="submit"]');
    await page.waitForFunction("document.getElementById('setting-totalBudgetSec')?.value === '120'");
    expect(await page.evaluate("sessionStorage.getItem('agent-loop-admin-key')")).toBe(KEY);
    // the form is built from the declared tunables (GET settings/fields): each field, its range, its column
    expect(
      await page.$$eval('#global-fields label', (labels) =>
        labels.map((label) => [
          label.querySelector('span')?.textContent,
          label.querySelector('small')?.textContent,
          label.querySelector('input')?.getAttribute('max'),
        ]),
      ),
    ).toEqual([
      ['totalBudgetSec', '1–3600', '3600'],
      ['defaultMaxTurns', '1–50', '50'],
      ['maxToolCallsPerTurn', '1–64', '64'],
      ['maxTokensPerLoop', 'empty: no limit', '1000000000'],
    ]);
    expect(await page.$$eval('#binding-head th', (cells) => cells.map((cell) => cell.textContent))).toEqual([
      'binding',
      'maxTurns',
      'toolTimeoutSec',
    ]);
    expect(await page.$eval('#binding-notes-toolTimeoutSec', (input) => input.getAttribute('max'))).toBe('300');
    expect(page.url()).not.toContain(KEY);
    await page.waitForFunction(
      "document.querySelector('#bindings .tools')?.textContent === 'notes_opennotes_readfails'",
    );

    const maxTurns = await page.$('#binding-notes-maxTurns');
    await maxTurns!.click({ count: 3 });
    await maxTurns!.type('4');
    await page.click('#save-settings');
    await page.waitForFunction("document.getElementById('settings-message')?.textContent.startsWith('Saved')");
    expect(await page.$eval('#settings-message', (node) => node.textContent)).toBe(
      'Saved: {"bindings":{"notes":{"maxTurns":4}}}',
    );
    expect(loop.settings.get().bindings.notes.maxTurns).toBe(4);
    await page.waitForFunction(
      "document.querySelector('#bindings .binding .muted')?.textContent.includes('maxTurns 4')",
    );

    // a value the browser refuses (maxTurns is at most 50) is never sent: the earlier "Saved" line goes
    const rendered = await page.$('#binding-notes-maxTurns');
    await rendered!.click({ count: 3 });
    await rendered!.type('99');
    await page.click('#save-settings');
    await page.waitForFunction("document.getElementById('settings-message')?.textContent === ''");
    expect(loop.settings.get().bindings.notes.maxTurns).toBe(4);

    const answer = client.chat.completions.create(ask()).withResponse();
    // the page polls: it may first show the loop on turn 1, before the turn the script holds
    await page.waitForFunction(
      "document.querySelector('#live-loops tr[data-loop] td:nth-child(3)')?.textContent === '2'",
      {
        timeout: 15_000,
      },
    );
    const live = await page.$eval('#live-loops tr', (row) =>
      [...row.querySelectorAll('td')].map((cell) => cell.textContent),
    );
    expect(live.slice(1, 3)).toEqual(['notes', '2']);
    release();
    const { response } = await answer;
    const id = response.headers.get('x-agent-loop-id')!;
    expect(live[0]).toBe(id);

    const row = await page.waitForSelector(`#timeline .loop-row[data-loop="${id}"]`, { timeout: 15_000 });
    await page.waitForFunction("document.querySelectorAll('#live-loops tr').length === 0");
    const bars = await row!.$$eval('.bar', (nodes) =>
      nodes.map((node) => [node.className, node.getAttribute('title')]),
    );
    expect(bars).toEqual([
      ['bar turn', expect.stringMatching(/^turn 1: ok, \d+ ms, 15 tokens$/)],
      ['bar tool', expect.stringMatching(/^notes_open: ok, \d+ ms$/)],
      ['bar fail', expect.stringMatching(/^fails: tool_error, \d+ ms$/)],
      ['bar turn', expect.stringMatching(/^turn 2: ok, \d+ ms, 15 tokens$/)],
    ]);
    expect(await row!.$eval('.badge', (node) => node.textContent)).toBe('final');

    await page.screenshot({ path: SCREENSHOT });
    // fits a 1366 px screen: nothing wider than the window, pseudo-elements included
    expect(await page.evaluate('[document.documentElement.scrollWidth, window.innerWidth]')).toEqual([1366, 1366]);
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);

  it("asks for the key again when the one it holds is refused, and shows a bad setting's coded message", async () => {
    const { url } = await rig.gateway([{ content: 'hi' }], { bindings, admin: { keyEnv: 'TEST_PAGE_ADMIN_KEY' } });
    const { page } = await openPage(url);
    await page.evaluate("sessionStorage.setItem('agent-loop-admin-key', 'not-the-key')");
    await page.reload({ waitUntil: 'load' });
    await page.waitForFunction("document.getElementById('login-error')?.textContent !== ''");
    expect(await page.$eval('#login-error', (node) => node.textContent)).toBe(
      'admin API: incorrect admin key provided. Check the key.',
    );
    expect(await page.evaluate("sessionStorage.getItem('agent-loop-admin-key')")).toBeNull();

    await page.type('#key', KEY);
    await page.click('#login-form button[type="submit"]');
    await page.waitForSelector('#main:not([hidden])');
    await page.waitForFunction("document.getElementById('setting-totalBudgetSec')?.value === '120'");
    // the browser's own range check would stop the form; the server's check is what is shown here
    await page.$eval('#setting-totalBudgetSec', (input) => input.removeAttribute('max'));
    const budget = await page.$('#setting-totalBudgetSec');
    await budget!.click({ count: 3 });
    await budget!.type('5000');
    await page.click('#save-settings');
    await page.waitForFunction("document.getElementById('settings-message')?.className === 'message bad'");
    expect(await page.$eval('#settings-message', (node) => node.textContent)).toBe(
      "agentLoop: option 'totalBudgetSec' is 5000; it must be a whole number from 1 to 3600 (default 120), e.g. totalBudgetSec: 120.",
    );
    await page.close();
  }, 60_000);
});
