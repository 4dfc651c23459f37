import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSocket, type Socket } from 'node:dgram';
import { createServer, type AddressInfo, type Server } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { launch, newPage, newPageIn, shot } from './support/browser.js';
import { pageOverflow } from './support/geometry.js';
import { openMenu } from './support/console-ui.js';
import { startKsp, type RunningServer } from './support/server.js';
import { initializeByApi } from './support/setup.js';
import { chooseOption, signIn } from './support/ui.js';

/** A syslog receiver over UDP in the test process: one message per datagram. */
async function udpReceiver(): Promise<{ socket: Socket; port: number; messages: string[] }> {
  const socket = createSocket('udp4');
  const messages: string[] = [];
  socket.on('message', (data) => messages.push(data.toString('utf8')));
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return { socket, port: socket.address().port, messages };
}

/** A syslog receiver over TCP with RFC 6587 octet counting ("LEN SP MSG") in the test process. */
async function tcpReceiver(): Promise<{ server: Server; port: number; messages: string[] }> {
  const messages: string[] = [];
  const server = createServer((connection) => {
    let pending = Buffer.alloc(0);
    connection.on('data', (data: Buffer) => {
      pending = Buffer.concat([pending, data]);
      for (;;) {
        const space = pending.indexOf(0x20);
        if (space < 0) return;
        const length = Number(pending.subarray(0, space).toString('ascii'));
        if (!Number.isInteger(length) || length <= 0) {
          messages.push(`BAD FRAME: ${pending.toString('utf8')}`);
          pending = Buffer.alloc(0);
          return;
        }
        if (pending.length < space + 1 + length) return;
        messages.push(pending.subarray(space + 1, space + 1 + length).toString('utf8'));
        pending = pending.subarray(space + 1 + length);
      }
    });
    connection.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, messages };
}

async function openSyslog(page: Page, base: string): Promise<void> {
  await page.goto(`${base}/console/setting/syslog`);
  await page.getByTestId('syslog-list').waitFor();
}

/** Adds a receiver through the form: protocol first (it sets the default port), then the port typed. */
async function addReceiver(
  page: Page,
  receiver: { name: string; protocol: 'UDP' | 'TCP'; port: number; format: string; defaultPort: number },
): Promise<void> {
  await page.getByTestId('syslog-add').click();
  const form = page.getByTestId('syslog-form');
  await form.waitFor();
  await page.getByTestId('syslog-name').fill(receiver.name);
  await page.getByTestId('syslog-protocol').getByText(receiver.protocol, { exact: true }).click();
  await expect.poll(() => page.getByTestId('syslog-port').inputValue()).toBe(String(receiver.defaultPort));
  await page.getByTestId('syslog-host').fill('127.0.0.1');
  await page.getByTestId('syslog-port').fill(String(receiver.port));
  if (receiver.format !== 'RFC 5424') await chooseOption(page, 'syslog-format', receiver.format);
  expect(await page.getByTestId('syslog-format').innerText()).toContain(receiver.format);
  expect(await page.getByTestId('syslog-tls-section').count()).toBe(0);
  await page.getByTestId('syslog-save').click();
  await form.waitFor({ state: 'detached' });
  await page.getByTestId(`syslog-row-${receiver.name}`).waitFor();
}

async function testReceiver(page: Page, name: string): Promise<string> {
  await page.getByTestId(`syslog-test-${name}`).click();
  const result = page.getByTestId('syslog-test-result');
  await expect.poll(() => result.innerText().catch(() => '')).toContain(`Test event to ${name}`);
  expect(await result.getAttribute('data-ok')).toBe('true');
  return result.innerText();
}

describe('settings › syslog, in the browser', () => {
  let ksp: RunningServer;
  let browser: Browser;
  let udp: Awaited<ReturnType<typeof udpReceiver>>;
  let tcp: Awaited<ReturnType<typeof tcpReceiver>>;

  beforeAll(async () => {
    udp = await udpReceiver();
    tcp = await tcpReceiver();
    ksp = await startKsp();
    await initializeByApi(ksp.url);
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
    await ksp?.stop();
    udp?.socket.close();
    tcp?.server.close();
  });

  it('adds a TCP (RFC 5424) and a UDP (CEF) receiver and tests both, in English', async () => {
    const { page, errors } = await newPage(browser);
    await signIn(page, ksp.url);
    await openMenu(page, 'Settings', 'Syslog');
    await page.waitForURL(/\/console\/setting\/syslog$/);
    await page.getByTestId('syslog-list').waitFor();

    await addReceiver(page, {
      name: 'tcp-receiver',
      protocol: 'TCP',
      port: tcp.port,
      format: 'RFC 5424',
      defaultPort: 601,
    });
    const row = page.getByTestId('syslog-row-tcp-receiver');
    expect(await row.innerText()).toContain(`127.0.0.1:${tcp.port}`);
    expect(await row.innerText()).toContain('Server logs');

    expect(await testReceiver(page, 'tcp-receiver')).toContain('delivered');
    await expect.poll(() => tcp.messages.some((message) => message.includes('syslog.test'))).toBe(true);
    const test = tcp.messages.find((message) => message.includes('syslog.test'))!;
    // RFC 5424: <PRI>1 TIMESTAMP HOST APP ...
    expect(test).toMatch(/^<\d{1,3}>1 \d{4}-\d\d-\d\dT/);
    expect(tcp.messages.filter((message) => message.startsWith('BAD FRAME'))).toEqual([]);
    await shot(page, 'syslog-tcp-en');

    await addReceiver(page, {
      name: 'udp-receiver',
      protocol: 'UDP',
      port: udp.port,
      format: 'CEF',
      defaultPort: 514,
    });
    expect(await page.getByTestId('syslog-row-udp-receiver').innerText()).toContain('CEF');
    expect(await testReceiver(page, 'udp-receiver')).toContain('sent (UDP has no acknowledgement)');
    await expect
      .poll(() => udp.messages.some((message) => message.startsWith('<') && message.includes('CEF:0|')))
      .toBe(true);

    // The forwarding job sends the records written since (these receivers' own audit records).
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Refresh' }).click();
          return Number((await page.getByTestId('syslog-sent-tcp-receiver').innerText()).replace(/,/g, ''));
        },
        { timeout: 30_000, interval: 2_000 },
      )
      .toBeGreaterThan(0);
    expect(await page.getByTestId('syslog-error-tcp-receiver').count()).toBe(0);
    await shot(page, 'syslog-both-en');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('shows the column titles and the menu entry in Chinese', async () => {
    const { page, errors } = await newPageIn(browser, ksp.url, { lang: 'zh' });
    await signIn(page, ksp.url);
    await openSyslog(page, ksp.url);
    await page.getByTestId('syslog-row-tcp-receiver').waitFor();
    const header = page.getByTestId('syslog-list').locator('thead');
    await expect.poll(() => header.innerText()).toContain('消息格式');
    const titles = await header.innerText();
    for (const title of [
      '名称',
      '地址',
      '协议',
      '转发的记录',
      '启用',
      '积压',
      '已发送',
      '最近发送时间',
      '最近错误',
      '操作',
    ]) {
      expect(titles).toContain(title);
    }
    expect(await page.getByTestId('syslog-row-tcp-receiver').innerText()).toContain('服务器日志');
    expect(await page.getByTestId('side-menu').innerText()).toContain('Syslog 转发');
    await shot(page, 'syslog-zh');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('fits an 800 px window, the list and the form', async () => {
    const { page, errors } = await newPage(browser, { width: 800, height: 900 });
    await signIn(page, ksp.url);
    await openSyslog(page, ksp.url);
    await page.getByTestId('syslog-row-udp-receiver').waitFor();
    const overflow = () => pageOverflow(page);
    expect(await overflow()).toBeLessThanOrEqual(1);
    const list = await page.getByTestId('syslog-list').boundingBox();
    expect(list && list.x >= 0 && list.x + list.width <= 800).toBe(true);
    await shot(page, 'syslog-800');

    await page.getByTestId('syslog-add').click();
    await page.getByTestId('syslog-protocol').getByText('TLS', { exact: true }).click();
    await page.getByTestId('syslog-tls-section').waitFor();
    const dialog = await page.locator('.ant-modal').last().boundingBox();
    expect(dialog && dialog.x >= 0 && dialog.x + dialog.width <= 800).toBe(true);
    expect(await overflow()).toBeLessThanOrEqual(1);
    await shot(page, 'syslog-800-form');
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
