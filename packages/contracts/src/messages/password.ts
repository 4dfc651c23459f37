import { defineMessages } from './define.js';

/** Password rules and the password policy. */
export const passwordMessages = defineMessages({
  en: {
    'password.rules': 'Password does not meet the rules! ({rules})',
    'password.rule.min_length': 'at least {n} characters',
    'password.rule.max_length': 'at most {n} characters',
    'password.rule.min_lowercase': 'at least {n} lowercase letter(s)',
    'password.rule.min_uppercase': 'at least {n} uppercase letter(s)',
    'password.rule.min_digits': 'at least {n} digit(s)',
    'password.rule.min_special': 'at least {n} special character(s)',
    'password.tooSoon': 'The password was changed less than {days} days ago; it cannot be changed again yet',
    'password.wrongOld': 'The current password is incorrect',
    'password.sameAsOld': 'The new password must differ from the current one',
    'password.directoryUser': 'Directory users change their password in the directory',
    'policy.minimaTooLong':
      'The required lowercase, uppercase, digit and special characters ({sum}) exceed the maximum length ({max})',
    'policy.minAboveMax': 'min_length ({min}) must not exceed max_length ({max})',
  },
  zh: {
    'password.rules': '密码不符合规则！（{rules}）',
    'password.rule.min_length': '至少 {n} 个字符',
    'password.rule.max_length': '最多 {n} 个字符',
    'password.rule.min_lowercase': '至少 {n} 个小写字母',
    'password.rule.min_uppercase': '至少 {n} 个大写字母',
    'password.rule.min_digits': '至少 {n} 个数字',
    'password.rule.min_special': '至少 {n} 个特殊字符',
    'password.tooSoon': '密码在 {days} 天内已修改过，暂时不能再次修改',
    'password.wrongOld': '当前密码不正确',
    'password.sameAsOld': '新密码不能与当前密码相同',
    'password.directoryUser': '目录用户请在目录服务中修改密码',
    'policy.minimaTooLong': '要求的小写、大写、数字和特殊字符总数（{sum}）超过最大长度（{max}）',
    'policy.minAboveMax': '最小长度（{min}）不能大于最大长度（{max}）',
  },
});
