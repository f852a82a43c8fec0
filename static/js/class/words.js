/**
 * English and Chinese words of the live class (class/), added to the page's table (i18n.js) so
 * t() and data-i18n find them like any other word.
 */

import { STRINGS } from "../i18n.js";

const EN = {
  class_start: "Start a class",
  class_start_hint: "Students follow this page on their own screens: they join with a link, a code or the QR code",
  class_title: "Live class",
  class_join_at: "Join at",
  class_code: "or type the code at {url}",
  class_qr: "QR code of the join link",
  class_end: "End the class",
  class_students: "Students follow this page: its program, step, graph level, open boxes and course view.",
  class_answers: "Answers: {n}",
  class_histogram: "The class's guesses",
  class_right_wrong: "Right: {right} · Wrong: {wrong}",
  class_q: "Question {k}",
  class_other: "other",
  class_none: "No answers yet.",
  class_start_failed: "The class could not start: {msg}",
  class_following: "Following the teacher",
  class_connecting: "Connecting to the class…",
  class_offline: "Connection lost: reconnecting…",
  class_away: "Looking around on your own",
  class_back: "Back to the teacher",
  class_waiting: "Waiting for the teacher to open a program.",
  class_ended: "The class has ended.",
  class_unknown: "This class does not exist or has ended.",
  class_sent: "Your answer is in. Wait for the teacher to reveal.",
  class_not_number: "Type a number (or a list of numbers) for each question.",
  class_send_failed: "Your answer was not sent: {msg}",
  class_share: "Class: {right} of {total} right ({pct}%)",
};

const ZH = {
  class_start: "开始课堂",
  class_start_hint: "学生在自己的屏幕上跟随这个页面: 用链接、代码或二维码加入",
  class_title: "课堂直播",
  class_join_at: "加入地址",
  class_code: "或在 {url} 输入代码",
  class_qr: "加入链接的二维码",
  class_end: "结束课堂",
  class_students: "学生跟随这个页面: 程序、步骤、图的层级、打开的框和课程视图。",
  class_answers: "已回答: {n}",
  class_histogram: "全班的答案",
  class_right_wrong: "正确: {right} · 错误: {wrong}",
  class_q: "问题 {k}",
  class_other: "其他",
  class_none: "还没有答案。",
  class_start_failed: "课堂无法开始: {msg}",
  class_following: "正在跟随老师",
  class_connecting: "正在连接课堂…",
  class_offline: "连接中断: 正在重新连接…",
  class_away: "正在自己浏览",
  class_back: "回到老师这里",
  class_waiting: "等待老师打开程序。",
  class_ended: "课堂已结束。",
  class_unknown: "这个课堂不存在或已结束。",
  class_sent: "你的答案已提交。等待老师揭晓。",
  class_not_number: "请为每个问题输入一个数 (或一组数)。",
  class_send_failed: "答案没有发送: {msg}",
  class_share: "全班: {total} 人中 {right} 人正确 ({pct}%)",
};

export function registerStrings() {
  Object.assign(STRINGS.en, EN);
  if (STRINGS.zh) Object.assign(STRINGS.zh, ZH);
}

export { EN, ZH };
