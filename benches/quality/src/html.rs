//! The articles as web pages of two sites with different templates.
//!
//! Each template has a site-wide "most read" list (the same headlines on
//! every page, as on real portals) and a per-page list of other articles'
//! headlines — with the first words of each in the second template — so
//! different articles on one site share much of their text, and the
//! template around one article differs between the two sites. The
//! Chinese pages of the second site are GBK-encoded, as many Chinese
//! sites still are.

use crate::corpus::Original;
use crate::rng::Rng;
use fpdb_tune::Lang;

/// Headlines in each site's site-wide list.
const HOT: usize = 10;
/// Other articles' headlines listed on each page.
const RELATED: usize = 8;

/// One site's template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Template {
    /// A portal: navigation, article, share bar, a sidebar of headlines.
    Portal,
    /// A blog-like site: breadcrumb, hot list on the left, the article, a
    /// "you may also like" list with teasers on the right.
    Magazine,
}

impl Template {
    pub const BOTH: [Template; 2] = [Template::Portal, Template::Magazine];
}

/// Every article under both templates: `pages[t][i]` is article `i` under
/// `Template::BOTH[t]`, as the bytes a crawler would fetch.
pub fn pages(articles: &[Original], lang: Lang) -> [Vec<Vec<u8>>; 2] {
    let mut rng = Rng::new(0x4854_4d4c);
    Template::BOTH.map(|template| {
        let hot: Vec<&str> = (0..HOT)
            .map(|_| rng.pick(articles).expect("a non-empty list").title.as_str())
            .collect();
        articles
            .iter()
            .enumerate()
            .map(|(i, article)| {
                let mut related = Vec::with_capacity(RELATED);
                while related.len() < RELATED {
                    let j = rng.below(articles.len());
                    if j != i {
                        related.push(&articles[j]);
                    }
                }
                page(template, lang, article, &hot, &related, &mut rng)
            })
            .collect()
    })
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn paragraphs(text: &str) -> String {
    text.lines()
        .map(|line| format!("<p>{}</p>\n", escape(line)))
        .collect()
}

/// The first words of an article, as a teaser.
fn teaser(article: &Original, lang: Lang) -> String {
    let text = article.text.lines().next().unwrap_or("");
    match lang {
        Lang::Zh => text.chars().take(40).collect::<String>() + "…",
        Lang::En => {
            text.split_whitespace()
                .take(20)
                .collect::<Vec<_>>()
                .join(" ")
                + " …"
        }
    }
}

struct Words {
    site: [&'static str; 2],
    nav: &'static [&'static str],
    hot: &'static str,
    related: [&'static str; 2],
    share: &'static str,
    footer: &'static str,
    source: &'static str,
    views: &'static str,
    crumb: &'static str,
}

const ZH: Words = Words {
    site: ["华夏新闻网", "青年生活周刊"],
    nav: &[
        "首页", "国内", "国际", "社会", "财经", "科技", "体育", "娱乐", "汽车", "房产", "教育",
        "健康",
    ],
    hot: "热门排行",
    related: ["相关新闻", "猜你喜欢"],
    share: "分享到：微信 微博 QQ空间 复制链接",
    footer: "关于我们 | 联系我们 | 广告服务 | 招聘信息 | 网站地图 | 违法和不良信息举报 | 版权声明",
    source: "来源",
    views: "阅读",
    crumb: "当前位置：首页",
};

const EN: Words = Words {
    site: ["The Capital Chronicle", "Weekly Ledger"],
    nav: &[
        "Home", "U.S.", "World", "Politics", "Business", "Tech", "Science", "Health", "Sports",
        "Arts", "Opinion", "Travel",
    ],
    hot: "Most read",
    related: ["Related stories", "You may also like"],
    share: "Share: Facebook Twitter LinkedIn Email Copy link",
    footer: "About us | Contact | Advertise | Careers | Site map | Terms of use | Privacy policy | Cookie settings",
    source: "Source",
    views: "views",
    crumb: "You are here: Home",
};

fn page(
    template: Template,
    lang: Lang,
    article: &Original,
    hot: &[&str],
    related: &[&Original],
    rng: &mut Rng,
) -> Vec<u8> {
    let w = match lang {
        Lang::Zh => &ZH,
        Lang::En => &EN,
    };
    let title = escape(&article.title);
    let body = paragraphs(&article.text);
    let nav: String = w
        .nav
        .iter()
        .map(|n| format!("<li><a href=\"/{}/\">{n}</a></li>", n.len()))
        .collect();
    let date = format!(
        "{}-{:02}-{:02} {:02}:{:02}",
        2015 + rng.below(10),
        1 + rng.below(12),
        1 + rng.below(28),
        rng.below(24),
        rng.below(60)
    );
    let views = rng.below(100_000);
    let section = *rng.pick(&w.nav[1..]).expect("a non-empty list");
    match template {
        Template::Portal => {
            let site = w.site[0];
            let hot: String = hot
                .iter()
                .enumerate()
                .map(|(n, h)| format!("<li><a href=\"/a/{n}.html\">{}</a></li>", escape(h)))
                .collect();
            let related: String = related
                .iter()
                .enumerate()
                .map(|(n, a)| format!("<li><a href=\"/r/{n}.html\">{}</a></li>", escape(&a.title)))
                .collect();
            let html = format!(
                "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{title} - {site}</title>\
<link rel=\"stylesheet\" href=\"/css/site.css\"><script>var _hmt = _hmt || []; (function() {{ var hm = 1; }})();</script></head>\n\
<body><div id=\"top\"><a class=\"logo\" href=\"/\">{site}</a><ul class=\"nav\">{nav}</ul>\
<form class=\"search\" action=\"/search\"><input name=\"q\"><button>Search</button></form></div>\n\
<div class=\"wrap\"><div class=\"main\"><h1>{title}</h1>\n<div class=\"info\">{date} {source}: {site} | {section}</div>\n\
<div class=\"article-content\">\n{body}</div>\n<div class=\"share\">{share}</div></div>\n\
<div class=\"sidebar\"><h3>{hot_label}</h3><ul>{hot}</ul><h3>{related_label}</h3><ul>{related}</ul></div></div>\n\
<div class=\"footer\"><p>{footer}</p><p>Copyright © 2024 {site}</p></div></body></html>\n",
                source = w.source,
                share = w.share,
                hot_label = w.hot,
                related_label = w.related[0],
                footer = w.footer,
            );
            html.into_bytes()
        }
        Template::Magazine => {
            let site = w.site[1];
            let hot: String = hot
                .iter()
                .enumerate()
                .map(|(n, h)| format!("<li><a href=\"/p/{n}\">{}</a></li>", escape(h)))
                .collect();
            let related: String = related
                .iter()
                .enumerate()
                .map(|(n, a)| {
                    format!(
                        "<li><a href=\"/p/r{n}\">{}</a><p class=\"teaser\">{}</p></li>",
                        escape(&a.title),
                        escape(&teaser(a, lang))
                    )
                })
                .collect();
            let charset = match lang {
                Lang::Zh => "gbk",
                Lang::En => "utf-8",
            };
            let html = format!(
                "<!doctype html>\n<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset={charset}\">\
<title>{title}_{site}</title><style>body {{ margin: 0 }} .post {{ width: 640px }}</style></head>\n\
<body><header class=\"site-header\"><div class=\"brand\">{site}</div><nav>{nav}</nav></header>\n\
<div class=\"crumb\">{crumb} &gt; {section}</div>\n<div class=\"container\">\
<aside class=\"left\"><h4>{hot_label}</h4><ol>{hot}</ol></aside>\n\
<article class=\"post\"><header><h1 class=\"post-title\">{title}</h1><p class=\"meta\">{date} · {views} {views_label}</p></header>\n\
<section class=\"post-body\">\n{body}</section></article>\n\
<aside class=\"right\"><h4>{related_label}</h4><ul>{related}</ul></aside></div>\n\
<footer id=\"foot\"><p>{footer}</p><p>© {site}</p></footer><script src=\"/js/stats.js\"></script></body></html>\n",
                crumb = w.crumb,
                hot_label = w.hot,
                views_label = w.views,
                related_label = w.related[1],
                footer = w.footer,
            );
            match lang {
                Lang::Zh => encoding_rs::GBK.encode(&html).0.into_owned(),
                Lang::En => html.into_bytes(),
            }
        }
    }
}
