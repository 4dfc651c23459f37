import { describe, expect, it } from 'vitest';
import {
  base64Text,
  directoryUsername,
  isBase64Text,
  isDirectoryUsername,
  isWellFormedText,
  objectName,
  splitDirectoryUsername,
} from './text.js';

describe('text rules', () => {
  it('tell well-formed UTF-16 from text with a lone surrogate', () => {
    for (const text of ['', 'plain', '张三', 'key \u{1F511}', '\uD83D\uDE00\uD83D\uDE00'])
      expect(isWellFormedText(text), JSON.stringify(text)).toBe(true);
    for (const text of ['\uD800', '\uDFFF', 'a\uD800b', '\uDE00\uD83D', 'x\uDBFF', '\uD83D\uDE00\uD800'])
      expect(isWellFormedText(text), JSON.stringify(text)).toBe(false);
  });

  it('take standard padded Base64 only', () => {
    expect(isBase64Text('')).toBe(true);
    expect(isBase64Text('AAEC')).toBe(true);
    expect(isBase64Text('AAE=')).toBe(true);
    expect(isBase64Text('AA==')).toBe(true);
    expect(isBase64Text('AAE')).toBe(false); // unpadded
    expect(isBase64Text('AA-_')).toBe(false); // URL alphabet
    expect(base64Text(8).safeParse(' AAEC ').data).toBe('AAEC');
    expect(base64Text(4).safeParse('AAECAwQ=').success).toBe(false);
  });

  it('name objects with letters and digits of any script first', () => {
    const name = objectName(16);
    expect(name.parse(' 财务 keys_1.a-b ')).toBe('财务 keys_1.a-b');
    for (const bad of ['', '-lead', 'a/b', 'x'.repeat(17)]) expect(name.safeParse(bad).success).toBe(false);
  });

  it('read a slash as a directory user', () => {
    expect(isDirectoryUsername('corp/alice')).toBe(true);
    expect(isDirectoryUsername('alice')).toBe(false);
    expect(directoryUsername('corp', 'alice')).toBe('corp/alice');
    expect(splitDirectoryUsername('corp/ou/alice')).toEqual({ connection: 'corp', user: 'ou/alice' });
    expect(splitDirectoryUsername('alice')).toBeNull();
  });
});
