import { defineMessages } from './define.js';

/** The scheduler (settings › scheduler): key-rotation tasks. */
export const schedulerMessages = defineMessages({
  en: {
    'scheduler.notFound': 'No scheduled task {id}',
    'scheduler.nameTaken': 'A scheduled task named {name} exists already',
    'scheduler.badCron': 'cron: {reason}',
    'scheduler.cronOrInterval': 'Give the schedule as cron or as a run interval, not both',
    'scheduler.noSchedule': 'A schedule is required: cron or a run interval',
    'scheduler.intervalIncomplete': 'interval: the {period} interval needs {field}',
    'scheduler.endBeforeStart': 'end_at ({end}) must be after start_at ({start})',
    'scheduler.neverDue': 'The schedule {cron} has no run between the start and the end date',
    'scheduler.backupFailed': 'The key-rotation backup failed, no key was rotated: {reason}',
    'scheduler.keysFailed': '{failed} of {matched} keys were not rotated',
    'scheduler.keyNotBackedUp': 'Not rotated: the key-rotation backup failed',
  },
  zh: {
    'scheduler.notFound': '计划任务 {id} 不存在',
    'scheduler.nameTaken': '名为 {name} 的计划任务已存在',
    'scheduler.badCron': 'cron：{reason}',
    'scheduler.cronOrInterval': '计划只能以 cron 或运行间隔之一给出，不能同时给出',
    'scheduler.noSchedule': '需要计划：cron 或运行间隔',
    'scheduler.intervalIncomplete': 'interval：{period} 间隔需要 {field}',
    'scheduler.endBeforeStart': '结束时间（{end}）必须晚于开始时间（{start}）',
    'scheduler.neverDue': '计划 {cron} 在开始与结束日期之间没有运行时间',
    'scheduler.backupFailed': '密钥轮换备份失败，未轮换任何密钥：{reason}',
    'scheduler.keysFailed': '{matched} 个密钥中有 {failed} 个未轮换',
    'scheduler.keyNotBackedUp': '未轮换：密钥轮换备份失败',
  },
});
