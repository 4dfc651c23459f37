import type { Rule, RuleObject } from 'antd/es/form';

/** Every message antd would show for `value`: it runs all the rules of a field, not the first only. */
export async function allMessages(rules: Rule[], value: unknown): Promise<string[]> {
  const out: string[] = [];
  for (const rule of rules) {
    const object = rule as RuleObject;
    const text = typeof value === 'string' ? value : '';
    if (object.required && (value === undefined || value === null || !text.trim())) {
      out.push(String(object.message as string));
    } else if (object.max !== undefined && text.length > object.max) {
      out.push(String(object.message as string));
    } else if (object.min !== undefined && text !== '' && text.length < object.min) {
      out.push(String(object.message as string));
    } else if (object.validator) {
      try {
        await object.validator(object, value, () => undefined);
      } catch (error) {
        out.push((error as Error).message);
      }
    }
  }
  return out;
}
