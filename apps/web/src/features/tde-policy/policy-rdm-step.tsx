import { Form, InputNumber, Select } from 'antd';
import { RdmSettings, RDM_THRESHOLD, rdmModes } from '@ksp/contracts';
import { limitsAt } from '../../components/schema-limits';
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
      <Form.Item
        name="threshold_files"
        label={t('tdePolicy:fields.thresholdFiles')}
        rules={[{ required: true }]}
      >
        <InputNumber
          min={RDM_THRESHOLD.files.min}
          max={RDM_THRESHOLD.files.max}
          precision={0}
          data-testid="policy-threshold-files"
        />
      </Form.Item>
      <Form.Item
        name="threshold_window_s"
        label={t('tdePolicy:fields.thresholdWindow')}
        rules={[{ required: true }]}
      >
        <InputNumber
          min={RDM_THRESHOLD.window_s.min}
          max={RDM_THRESHOLD.window_s.max}
          precision={0}
          data-testid="policy-threshold-window"
        />
      </Form.Item>
    </FieldsCard>
  );
}
