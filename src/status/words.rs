//! The sentences of the status lines, in every UI language. One method per phase, so a
//! new phase cannot be worded in one language and forgotten in the other.

use crate::contracts::{Decision, DecisionSource, ReplanDirective, TerminalDirective};
use crate::contracts::{ToolName, ToolRef};

use super::Lang;
use crate::laws::LAW1_PREFIX;

/// A summary as a person reads it: without the `[LAW1]` marker, and whether it had one.
pub fn plain_summary(summary: &str) -> (String, bool) {
    let trimmed = summary.trim_start();
    match trimmed.strip_prefix(LAW1_PREFIX) {
        Some(rest) => (rest.trim_start().to_string(), true),
        None => (summary.trim().to_string(), false),
    }
}

/// The sentences of one language.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Words(pub Lang);

/// "Step 2 of 3" / "第 2/3 步", or "A step" when the plan is not known.
fn step(lang: Lang, at: Option<(usize, usize)>) -> String {
    match (lang, at) {
        (Lang::En, Some((n, of))) => format!("Step {n} of {of}"),
        (Lang::En, None) => "A step".into(),
        (Lang::ZhCn, Some((n, of))) => format!("第 {n}/{of} 步"),
        (Lang::ZhCn, None) => "某一步".into(),
    }
}

impl Words {
    fn en(self) -> bool {
        self.0 == Lang::En
    }

    fn pick(self, en: impl Into<String>, zh: impl Into<String>) -> String {
        if self.en() { en.into() } else { zh.into() }
    }

    pub(crate) fn reading(self) -> String {
        self.pick("Reading your request…", "正在理解你的请求…")
    }

    pub(crate) fn question(self, question: &str) -> String {
        self.pick(
            format!("A question for you: {question}"),
            format!("需要你回答一个问题：{question}"),
        )
    }

    pub(crate) fn proceeding(self) -> String {
        self.pick("Going ahead as understood…", "按已理解的意思继续…")
    }

    pub(crate) fn answered(self) -> String {
        self.pick("Thanks — going on with your answer…", "收到你的回答，继续…")
    }

    pub(crate) fn chat(self) -> String {
        self.pick("Answered.", "已回答。")
    }

    pub(crate) fn understood(self, intent: &str) -> String {
        self.pick(format!("Understood: {intent}"), format!("已理解：{intent}"))
    }

    pub(crate) fn recalling(self) -> String {
        self.pick("Checking what worked before…", "正在回顾以往的经验…")
    }

    pub(crate) fn planning(self, lessons: usize) -> String {
        match (self.0, lessons) {
            (Lang::En, 0) => "Planning…".into(),
            (Lang::En, 1) => "Planning, with 1 lesson from earlier tasks…".into(),
            (Lang::En, n) => format!("Planning, with {n} lessons from earlier tasks…"),
            (Lang::ZhCn, 0) => "正在制定计划…".into(),
            (Lang::ZhCn, n) => format!("正在制定计划，参考了以往任务的 {n} 条经验…"),
        }
    }

    pub(crate) fn plan(self, steps: usize, round: u32) -> String {
        match (self.0, round, steps) {
            (Lang::En, 0, 1) => "Planning 1 step…".into(),
            (Lang::En, 0, n) => format!("Planning {n} steps…"),
            (Lang::En, _, 1) => "New plan: 1 step…".into(),
            (Lang::En, _, n) => format!("New plan: {n} steps…"),
            (Lang::ZhCn, 0, n) => format!("计划分 {n} 步完成…"),
            (Lang::ZhCn, _, n) => format!("新的计划：共 {n} 步…"),
        }
    }

    pub(crate) fn step_start(self, at: Option<(usize, usize)>, intent: &str) -> String {
        let s = step(self.0, at);
        self.pick(format!("{s}: {intent}"), format!("{s}：{intent}"))
    }

    /// What a tool call does, in words.
    pub(crate) fn activity(self, tool: &ToolRef, target: &str) -> String {
        use ToolName as T;
        let (en, zh) = match tool.builtin() {
            Some(T::Mdfind) => (
                format!("searching your files for {target}"),
                format!("在你的文件中搜索 {target}"),
            ),
            Some(T::Glob | T::ListFiles) => (format!("listing {target}"), format!("列出 {target}")),
            Some(T::CopyFiles) => (
                format!("copying files into {target}"),
                format!("把文件复制到 {target}"),
            ),
            Some(T::MoveFiles) => (
                format!("moving files: {target}"),
                format!("移动文件：{target}"),
            ),
            Some(T::ConvertFile) => (format!("writing {target}"), format!("写入 {target}")),
            Some(T::SetValue) => (
                format!("setting a value in {target}"),
                format!("修改 {target} 中的设置"),
            ),
            Some(T::EditFile) => (
                format!("changing text in {target}"),
                format!("修改 {target} 中的文字"),
            ),
            Some(T::DeleteFiles) => (
                format!("deleting files: {target}"),
                format!("删除文件：{target}"),
            ),
            Some(T::ReadTable) => (
                format!("reading the table {target}"),
                format!("读取表格 {target}"),
            ),
            Some(T::ReadLines) => (
                format!("reading the lines of {target}"),
                format!("读取 {target} 的行"),
            ),
            Some(T::Calculate) => (format!("calculating {target}"), format!("计算 {target}")),
            Some(T::ReadFile) => (format!("reading {target}"), format!("读取 {target}")),
            Some(T::WriteFile) => (format!("writing {target}"), format!("写入 {target}")),
            Some(T::Shell) => (format!("running `{target}`"), format!("运行 `{target}`")),
            Some(T::Search) => (
                format!("searching the web for {target}"),
                format!("在网上搜索 {target}"),
            ),
            Some(T::Applescript) => (
                "running an AppleScript".to_string(),
                "运行一段 AppleScript".to_string(),
            ),
            Some(T::Shortcuts) => (
                format!("running the shortcut {target}"),
                format!("运行快捷指令 {target}"),
            ),
            None => (
                format!("using {tool} on {target}"),
                format!("用 {tool} 处理 {target}"),
            ),
        };
        self.pick(en, zh)
    }

    pub(crate) fn step_doing(self, at: Option<(usize, usize)>, activity: &str) -> String {
        let s = step(self.0, at);
        self.pick(format!("{s}: {activity}"), format!("{s}：{activity}"))
    }

    pub(crate) fn step_snag(
        self,
        at: Option<(usize, usize)>,
        activity: &str,
        error: &str,
    ) -> String {
        let s = step(self.0, at);
        match (self.0, error.is_empty()) {
            (Lang::En, true) => format!("{s}: {activity} did not work"),
            (Lang::En, false) => format!("{s}: {activity} did not work — {error}"),
            (Lang::ZhCn, true) => format!("{s}：{activity}没有成功"),
            (Lang::ZhCn, false) => format!("{s}：{activity}没有成功——{error}"),
        }
    }

    pub(crate) fn step_denied(self, at: Option<(usize, usize)>, activity: &str) -> String {
        let s = step(self.0, at);
        self.pick(
            format!("{s}: not done, as you decided ({activity})"),
            format!("{s}：按你的决定未执行（{activity}）"),
        )
    }

    pub(crate) fn checking_step(self, at: Option<(usize, usize)>) -> String {
        let s = step(self.0, at);
        self.pick(
            format!("{s}: checking the result…"),
            format!("{s}：正在检查结果…"),
        )
    }

    pub(crate) fn retry(self, at: Option<(usize, usize)>, wrong: &str, next: &str) -> String {
        let s = step(self.0, at);
        self.pick(
            format!("{s} fell short: {wrong} — trying again: {next}"),
            format!("{s}未达成：{wrong}——再试一次：{next}"),
        )
    }

    pub(crate) fn step_done(self, at: Option<(usize, usize)>) -> String {
        let s = step(self.0, at);
        self.pick(format!("{s} done."), format!("{s}已完成。"))
    }

    pub(crate) fn step_failed(self, at: Option<(usize, usize)>, why: &str) -> String {
        let s = step(self.0, at);
        match (self.0, why.is_empty()) {
            (Lang::En, true) => format!("{s} failed."),
            (Lang::En, false) => format!("{s} failed: {why}"),
            (Lang::ZhCn, true) => format!("{s}失败了。"),
            (Lang::ZhCn, false) => format!("{s}失败了：{why}"),
        }
    }

    pub(crate) fn halted(self, skipped: usize) -> String {
        match (self.0, skipped) {
            (Lang::En, 1) => "Holding back the next step until the plan is fixed…".into(),
            (Lang::En, n) => format!("Holding back the next {n} steps until the plan is fixed…"),
            (Lang::ZhCn, n) => format!("暂停后面的 {n} 步，先修正计划…"),
        }
    }

    pub(crate) fn reviewing(self, failed: usize, total: usize) -> String {
        self.pick(
            format!("{failed} of {total} steps fell short — looking for a better way…"),
            format!("{total} 步中有 {failed} 步未达成——正在寻找更好的办法…"),
        )
    }

    pub(crate) fn checking_whole(self) -> String {
        self.pick(
            "All steps done — checking the whole result…",
            "所有步骤已完成——正在检查整体结果…",
        )
    }

    pub(crate) fn replan(self, directive: ReplanDirective, unmet: &str) -> String {
        let (en, zh) = match directive {
            ReplanDirective::Refine => ("Fixing the plan", "正在修正计划"),
            ReplanDirective::ChangePath => {
                ("Trying another place or target", "换一个位置或目标再试")
            }
            ReplanDirective::ChangeApproach => ("Trying a different approach", "换一种做法再试"),
            ReplanDirective::BreakSymmetry => ("Trying something new", "尝试全新的做法"),
        };
        match (self.0, unmet.is_empty()) {
            (Lang::En, true) => format!("{en}…"),
            (Lang::En, false) => format!("{en} (still missing: {unmet})…"),
            (Lang::ZhCn, true) => format!("{zh}…"),
            (Lang::ZhCn, false) => format!("{zh}（尚未达成：{unmet}）…"),
        }
    }

    pub(crate) fn no_plan(self, reason: &str) -> String {
        self.pick(
            format!("Could not make a workable plan: {reason}"),
            format!("没能制定出可行的计划：{reason}"),
        )
    }

    pub(crate) fn giving_up(self) -> String {
        self.pick(
            "Stopping — writing down what was done and what to try next…",
            "停止执行——正在整理已完成的部分和下一步建议…",
        )
    }

    pub(crate) fn finished(self, directive: TerminalDirective) -> String {
        match directive {
            TerminalDirective::Abandon => self.pick("Could not finish.", "未能完成。"),
            TerminalDirective::Accept | TerminalDirective::Success => self.pick("Done.", "完成。"),
        }
    }

    pub(crate) fn approval(self, effect: &str) -> String {
        self.pick(
            format!("Waiting for your approval: {effect}"),
            format!("等待你的批准：{effect}"),
        )
    }

    pub(crate) fn decided(self, decision: Decision, source: DecisionSource) -> String {
        match (decision, source) {
            (Decision::Approve, _) => self.pick("Approved — going on…", "已批准——继续…"),
            (Decision::Trash, _) => self.pick(
                "Moving to the Trash instead — going on…",
                "改为移到废纸篓——继续…",
            ),
            (Decision::Deny, DecisionSource::User) => self.pick(
                "Denied — nothing was changed; looking for another way…",
                "已拒绝——没有做任何更改；正在寻找其他办法…",
            ),
            (Decision::Deny, DecisionSource::Timeout) => self.pick(
                "No answer in time — denied, nothing was changed.",
                "未及时回答——已拒绝，没有做任何更改。",
            ),
            (Decision::Deny, DecisionSource::NonInteractive) => self.pick(
                "Denied: nobody can approve here — nothing was changed.",
                "已拒绝：此处无法请求批准——没有做任何更改。",
            ),
            (Decision::Deny, DecisionSource::Dropped) => self.pick(
                "Denied: the request was withdrawn — nothing was changed.",
                "已拒绝：请求已撤回——没有做任何更改。",
            ),
        }
    }

    pub(crate) fn cancelled(self) -> String {
        self.pick("Cancelled.", "已取消。")
    }
}
