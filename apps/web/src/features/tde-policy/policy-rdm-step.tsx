import { Form, Select } from 'antd';
import { RdmSettings, RDM_THRESHOLD, rdmModes } from '@ksp/contracts';
import { limitsAt } from '../../components/schema-limits';
import { WholeNumberField } from '../../components/whole-number-field';
import { useT } from '../../i18n/i18n';
import { FieldsCard } from './fields-card';
import type { PolicyOptions } from './use-policy-options';

const TRUSTED = limitsAt(RdmSettings, ['trusted_process_set_ids']);

/** An RDM policy's protection settings: the mode, the trusted processes and the threshold. */
export function PolicyRdmStep({ options }: { options: PolicyOptions }) {
  const t = useT();
  return (
    <FieldsCard title={t('tdePolicy:sections.rdm')} first>
      <Form.Item
        name="rdm_mode"
        label={t('tdePolicy:fields.rdmMode')}
        rules={[{ required: true }]}
        style={{ minWidth: 160 }}
      >
        <Select
          data-testid="policy-rdm-mode"
          options={rdmModes.map((m) => ({ value: m, label: t(`tdePolicy:modes.${m}`) }))}
        />
      </Form.Item>
      <Form.Item
        name="trusted_process_set_ids"
        label={t('tdePolicy:fields.trustedProcesses')}
        rules={[{ type: 'array', max: TRUSTED.max }]}
        style={{ minWidth: 260, flex: 1 }}
      >
        <Select mode="multiple" data-testid="policy-trusted" options={options.setOptions('process')} />
      </Form.Item>
      <WholeNumberField
        name="threshold_files"
        label={t('tdePolicy:fields.thresholdFiles')}
        range={RDM_THRESHOLD.files}
        style={{ minWidth: 160 }}
        testId="policy-threshold-files"
      />
      <WholeNumberField
        name="threshold_window_s"
        label={t('tdePolicy:fields.thresholdWindow')}
        range={RDM_THRESHOLD.window_s}
        style={{ minWidth: 160 }}
        testId="policy-threshold-window"
      />
    </FieldsCard>
  );
}
