import { formatMessage, messageKeys, type Language, type MessageKey } from '@ksp/contracts';

/** One zod issue as fastify-type-provider-zod hands it over. */
export interface ValidationIssue {
  keyword: string;
  instancePath: string;
  message: string;
  params: Record<string, unknown>;
}

type Text = Record<Language, (p: Record<string, unknown>) => string>;

const sizeUnit = (origin: unknown, lang: Language) => {
  if (origin === 'string') return lang === 'zh' ? '个字符' : 'character(s)';
  if (origin === 'array' || origin === 'set') return lang === 'zh' ? '项' : 'item(s)';
  return '';
};

const rules: Record<string, Text> = {
  required: { en: () => 'is required', zh: () => '为必填项' },
  invalid_type: {
    en: (p) => `must be ${String(p.expected)}`,
    zh: (p) => `类型应为 ${String(p.expected)}`,
  },
  too_small: {
    en: (p) =>
      p.origin === 'number' || p.origin === 'int' || p.origin === 'bigint'
        ? `must be at least ${String(p.minimum)}`
        : `must have at least ${String(p.minimum)} ${sizeUnit(p.origin, 'en')}`,
    zh: (p) =>
      p.origin === 'number' || p.origin === 'int' || p.origin === 'bigint'
        ? `不能小于 ${String(p.minimum)}`
        : `至少需要 ${String(p.minimum)} ${sizeUnit(p.origin, 'zh')}`,
  },
  too_big: {
    en: (p) =>
      p.origin === 'number' || p.origin === 'int' || p.origin === 'bigint'
        ? `must be at most ${String(p.maximum)}`
        : `must have at most ${String(p.maximum)} ${sizeUnit(p.origin, 'en')}`,
    zh: (p) =>
      p.origin === 'number' || p.origin === 'int' || p.origin === 'bigint'
        ? `不能大于 ${String(p.maximum)}`
        : `最多 ${String(p.maximum)} ${sizeUnit(p.origin, 'zh')}`,
  },
  invalid_format: {
    en: (p) =>
      p.format === 'regex' ? 'has characters that are not allowed' : `must be a valid ${String(p.format)}`,
    zh: (p) => (p.format === 'regex' ? '包含不允许的字符' : `必须是有效的 ${String(p.format)}`),
  },
  invalid_value: {
    en: (p) => `must be one of ${formatValues(p.values)}`,
    zh: (p) => `只能是 ${formatValues(p.values)} 之一`,
  },
  unrecognized_keys: {
    en: (p) => `has unknown fields ${formatValues(p.keys)}`,
    zh: (p) => `包含未知字段 ${formatValues(p.keys)}`,
  },
  malformed_text: {
    en: () => 'is not well-formed Unicode text (it holds a lone UTF-16 surrogate)',
    zh: () => '不是格式正确的 Unicode 文本（含有不成对的 UTF-16 代理项）',
  },
  not_multiple_of: {
    en: (p) => `must be a multiple of ${String(p.divisor)}`,
    zh: (p) => `必须是 ${String(p.divisor)} 的倍数`,
  },
};

function formatValues(values: unknown): string {
  return Array.isArray(values) ? values.map((v) => JSON.stringify(v)).join(', ') : String(values);
}

const fieldLabel = (path: string, context: string, lang: Language) => {
  const field = path.replace(/^\//, '').replaceAll('/', '.');
  if (field) return field;
  if (context === 'querystring') return lang === 'zh' ? '查询参数' : 'query';
  return lang === 'zh' ? '请求体' : 'body';
};

/** Messages the contracts set themselves (refinements, named patterns), in both languages. */
const customMessages: Record<string, Record<Language, string>> = {
  'must be Base64': { en: 'must be Base64', zh: '必须是 Base64 编码' },
  'must be an IPv4/IPv6 address or CIDR range': {
    en: 'must be an IPv4/IPv6 address or CIDR range',
    zh: '必须是 IPv4/IPv6 地址或 CIDR 网段',
  },
  'must be at most 4096 characters as JSON': {
    en: 'must be at most 4096 characters as JSON',
    zh: '作为 JSON 最多 4096 个字符',
  },
  'at most 32 labels': { en: 'at most 32 labels', zh: '最多 32 个标签' },
  'give id, or url and user_base_dn': {
    en: 'give id, or url and user_base_dn',
    zh: '请提供 id，或 url 与 user_base_dn',
  },
};

const knownKeys: ReadonlySet<string> = new Set(messageKeys);

/** "username: must have at most 64 characters" — the field and the rule, in the caller's language. */
export function describeIssues(issues: ValidationIssue[], context: string, lang: Language): string {
  return issues
    .slice(0, 5)
    .map((issue) => {
      // A contract rule whose message is a message key (`cert.invalidName`): that message,
      // which names the field itself.
      if (knownKeys.has(issue.message))
        return formatMessage(issue.message as MessageKey, lang, {
          field: fieldLabel(issue.instancePath, context, lang),
        });
      const missing = issue.keyword === 'invalid_type' && /received undefined/.test(issue.message);
      const custom = customMessages[issue.message];
      const text = rules[missing ? 'required' : issue.keyword];
      const rule = custom ? custom[lang] : text ? text[lang](issue.params) : issue.message;
      return `${fieldLabel(issue.instancePath, context, lang)}: ${rule}`;
    })
    .join('; ');
}
