import { describe, expect, it } from 'vitest';
import { createServiceRegistry, registerModules, type KspModule, type PlatformParts } from './module.js';

// The kit only hands these parts on; the modules here never touch them.
const parts = { clock: () => new Date(0) } as unknown as PlatformParts;

describe('the module kit', () => {
  it('gives a module the services of the modules listed before it, and refuses them otherwise', async () => {
    const registry = createServiceRegistry();
    const seen: string[] = [];
    const offering: KspModule = {
      name: 'offering',
      register: (ctx) => ctx.provide('readiness', () => Promise.resolve({ ready: true })),
    };
    const using: KspModule = {
      name: 'using',
      register: async (ctx) => {
        seen.push(String((await ctx.use('readiness')()).ready));
      },
    };
    await registerModules([offering, using], parts, registry);
    expect(seen).toEqual(['true']);
    await expect(registerModules([using], parts, createServiceRegistry())).rejects.toThrow(
      /'readiness' is not provided/,
    );
    expect(() => registry.provide('readiness', () => Promise.resolve({ ready: true }))).toThrow(
      /provided twice/,
    );
  });

  it('starts modules in order and stops them in reverse, closing resources last', async () => {
    const events: string[] = [];
    const module = (name: string): KspModule => ({
      name,
      register: (ctx) => ctx.onClose(() => void events.push(`close ${name}`)),
      start: () => Promise.resolve(void events.push(`start ${name}`)),
      stop: () => Promise.resolve(void events.push(`stop ${name}`)),
    });
    const kit = await registerModules([module('a'), module('b')], parts, createServiceRegistry());
    await kit.start();
    await kit.stop();
    expect(events).toEqual(['start a', 'start b', 'stop b', 'stop a', 'close b', 'close a']);
  });

  it('refuses a module listed twice', async () => {
    const m: KspModule = { name: 'twice', register: () => undefined };
    await expect(registerModules([m, m], parts, createServiceRegistry())).rejects.toThrow(/listed twice/);
  });
});
