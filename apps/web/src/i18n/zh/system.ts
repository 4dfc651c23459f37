import type { Catalogue } from '../catalogue';
import type { system as en } from '../en/system';

export const system: Catalogue<typeof en> = {
  checking: '正在检查系统状态…',
  setupCode: {
    label: '设置码',
    hint: '此服务器监听网络地址：请输入服务器启动时在控制台打印的一次性设置码（也保存在其数据目录下的 setup-code 文件中）。',
    placeholder: 'XXXX-XXXX-XXXX-XXXX-XXXX-XXXX-XXXX-XXXX',
    invalid: '设置码由 32 位十六进制数字组成',
  },
  init: {
    title: '系统初始化',
    intro: '根密钥由多个密钥分量合成。每个分量及其 KCV（密钥校验值）只显示一次：请交给不同的保管人妥善保存。',
    total: '分量个数',
    start: '生成第一个分量',
    restartNotice:
      '有一次初始化尚未完成（已生成 {{done}}/{{total}} 个分量）。分量不会再次显示：重新开始将生成新的分量。',
    component: '第 {{index}} 个分量（共 {{total}} 个）',
    showOnce: '此分量只显示一次，请立即抄写或复制保存。',
    value: '分量值',
    kcv: 'KCV',
    saved: '我已保存第 {{index}} 个分量',
    next: '下一个分量',
    finish: '完成初始化',
    doneTitle: '系统初始化完成',
    rootKcv: '根密钥 KCV：{{kcv}}',
    sealFile: '封存文件：{{file}}',
    toActivation: '继续激活',
    stepComponents: '密钥分量',
    stepDone: '完成',
  },
  activate: {
    title: '系统激活',
    stepUkey: '验证 UKEY',
    stepEmail: '绑定邮箱',
    ukeyNote: 'UKEY 绑定将随访问管理提供，请先跳过此步骤。',
    skip: '跳过',
    username: '管理员用户名',
    password: '密码',
    confirm: '确认密码',
    email: '邮箱',
    submit: '激活',
    success: '系统已激活',
  },
};
