import { describe, expect, it } from 'vitest';
import { stepOfError, stepsOf } from './policy-wizard';

describe('the policy wizard', () => {
  it('has key rules for standard policies and protection settings for RDM ones', () => {
    expect(stepsOf('standard')).toEqual(['general', 'rules', 'keys', 'review']);
    expect(stepsOf('rdm')).toEqual(['general', 'rdm', 'rules', 'review']);
  });

  it('sends a refusal to the step and field its message names, in en and zh', () => {
    const standard = stepsOf('standard');
    const rdm = stepsOf('rdm');
    expect(stepOfError(4000, 'name: must have at most 64 character(s)', standard)).toMatchObject({
      step: 'general',
      field: 'name',
    });
    expect(stepOfError(4000, 'key_rules[2].key_id：本域中不存在密钥 x', standard)).toMatchObject({
      step: 'keys',
      row: 2,
    });
    expect(
      stepOfError(4000, 'security_rules[0].user_set_id: no user set x in this domain', rdm),
    ).toMatchObject({ step: 'rules', row: 0 });
    expect(stepOfError(4000, 'rdm.threshold.files: must be at most 100000', rdm)).toMatchObject({
      step: 'rdm',
      field: 'threshold_files',
    });
    expect(stepOfError(4000, 'rdm.trusted_process_set_ids[1]：本域中不存在 process 集 x', rdm)).toMatchObject(
      {
        step: 'rdm',
        field: 'trusted_process_set_ids',
      },
    );
  });

  it('sends a name conflict to the name, and refusals naming no field to the general step', () => {
    const steps = stepsOf('standard');
    expect(stepOfError(4090, "A standard policy named 'x' already exists", steps)).toMatchObject({
      step: 'general',
      field: 'name',
    });
    const locked = stepOfError(4220, 'The type of policy x is rdm: it cannot change after creation', steps);
    expect(locked.step).toBe('general');
    expect(locked.field).toBeUndefined();
  });
});
