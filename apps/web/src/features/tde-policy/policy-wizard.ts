import { Code, type PolicyType } from '@ksp/contracts';

/**
 * The steps of the policy editor (docs/modules.md#policies): general → (RDM settings) → security rules →
 * (key rules) → review. A standard policy has key rules; an RDM policy has its protection
 * settings instead (§6.2).
 */
export type PolicyStep = 'general' | 'rdm' | 'rules' | 'keys' | 'review';

export const stepsOf = (type: PolicyType): PolicyStep[] =>
  type === 'rdm' ? ['general', 'rdm', 'rules', 'review'] : ['general', 'rules', 'keys', 'review'];

/** The general-step form fields each step validates before Next. */
export const fieldsOfStep: Record<PolicyStep, string[]> = {
  general: ['name', 'description', 'type', 'learn_mode', 'restrict_update'],
  rdm: ['rdm_mode', 'trusted_process_set_ids', 'threshold_files', 'threshold_window_s'],
  rules: [],
  keys: [],
  review: [],
};

/** Where a refusal of the server belongs: the step, the form field, or the rule row it names. */
export interface StepError {
  step: PolicyStep;
  message: string;
  field?: string;
  row?: number;
}

const rdmFields: Record<string, string> = {
  'rdm.mode': 'rdm_mode',
  'rdm.trusted_process_set_ids': 'trusted_process_set_ids',
  'rdm.threshold.files': 'threshold_files',
  'rdm.threshold.window_s': 'threshold_window_s',
};
const generalFields = ['name', 'description', 'type', 'learn_mode', 'restrict_update'];

/**
 * The step a save refusal concerns, from the field path its message starts with
 * ("security_rules[1].effects: …", "rdm.threshold.files：…") or, for the refusals that name
 * no field, from its code: a name conflict (4090) is the name's, a state refusal (4220: type
 * locked, restricted while in use) the general step's.
 */
export function stepOfError(code: number, message: string, steps: PolicyStep[]): StepError {
  const path = /^\s*([a-z_]+(?:\[\d+\])?(?:\.[a-z_]+(?:\[\d+\])?)*)\s*[:：]/.exec(message)?.[1];
  const has = (s: PolicyStep): PolicyStep => (steps.includes(s) ? s : 'general');
  if (path) {
    const rule = /^(security_rules|key_rules)(?:\[(\d+)\])?/.exec(path);
    if (rule) {
      const row = rule[2] === undefined ? undefined : Number(rule[2]);
      return { step: has(rule[1] === 'security_rules' ? 'rules' : 'keys'), message, row };
    }
    if (path === 'rdm' || path.startsWith('rdm.'))
      return { step: has('rdm'), message, field: rdmFields[path.replace(/\[\d+\]$/, '')] };
    if (generalFields.includes(path)) return { step: 'general', message, field: path };
  }
  if (code === Code.CONFLICT) return { step: 'general', message, field: 'name' };
  return { step: 'general', message };
}
