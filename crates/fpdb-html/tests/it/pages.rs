//! Pages as crawlers meet them: one article inside two site templates,
//! Chinese encodings, and hostile input.

use fpdb_html::{page_text, CharsetSource, Extract, HtmlError, MAX_HTML_BYTES};
use proptest::prelude::*;

const ARTICLE: [&str; 4] = [
    "今年春天雨水充足，山区的茶农们比往年提前十天开始采摘新茶。合作社负责人介绍，新建的加工车间让鲜叶当天就能完成杀青和揉捻。",
    "茶叶的香气因此保存得更好，收购价格也随之上涨。不少在外打工的年轻人回到村里，跟着老师傅学习炒茶的手艺，希望把家乡的茶叶卖到更远的地方。",
    "县里的农业部门表示，今年将在三个乡镇推广生态种植，减少化肥和农药的使用，并为茶农提供免费的技术培训和品牌设计服务。",
    "业内人士认为，随着电商直播的普及，山区特色农产品的销售渠道正在变宽，但品质稳定和物流成本仍然是需要解决的问题。",
];

const HEADLINES: [&str; 6] = [
    "新的高速铁路线路正式开通运营",
    "市博物馆推出古代海上贸易特别展览",
    "主队补时绝杀卫冕冠军升至第三",
    "社区图书馆改造后重新开放",
    "本市计划新建三千个电动汽车快充桩",
    "暴雨预警发布多条公交线路调整",
];

fn page(template: usize) -> String {
    let body: String = ARTICLE.iter().map(|p| format!("<p>{p}</p>\n")).collect();
    let headlines: String = HEADLINES
        .iter()
        .enumerate()
        .map(|(i, h)| format!("<li><a href=\"/news/{i}.html\">{h}</a></li>"))
        .collect();
    match template {
        0 => format!(
            "<!doctype html><html><head><title>茶农采茶</title><style>p{{color:red}}</style></head><body>\
             <div class=\"header\"><a href=\"/\">本地新闻网</a> <a href=\"/sport\">体育</a> <a href=\"/tech\">科技</a></div>\
             <div class=\"main\"><h1>山区茶农提前采摘新茶</h1><div class=\"article-content\">{body}</div></div>\
             <div class=\"sidebar\"><h3>热门新闻</h3><ul>{headlines}</ul></div>\
             <div class=\"footer\">版权所有 本地新闻网 联系我们 京ICP备00000000号</div>\
             <script>var views = 12345;</script></body></html>"
        ),
        _ => format!(
            "<html><body><nav><ul><li><a href=\"/\">门户首页</a></li><li><a href=\"/f\">财经</a></li></ul></nav>\
             <aside id=\"related\"><h4>相关阅读</h4><ol>{headlines}</ol></aside>\
             <article><h2>山区茶农提前采摘新茶</h2>{body}<p class=\"share\">分享到：微博 微信</p></article>\
             <footer>转载请注明出处 阅读次数：987</footer></body></html>"
        ),
    }
}

#[test]
fn main_text_is_the_article_whatever_the_template() {
    let a = page_text(page(0).as_bytes(), None, Extract::Main).unwrap();
    let b = page_text(page(1).as_bytes(), None, Extract::Main).unwrap();
    for extracted in [&a, &b] {
        assert_eq!(extracted.extracted, Extract::Main, "{}", extracted.text);
        for paragraph in ARTICLE {
            assert!(extracted.text.contains(paragraph), "{}", extracted.text);
        }
        for headline in HEADLINES {
            assert!(!extracted.text.contains(headline), "{}", extracted.text);
        }
        assert!(!extracted.text.contains("views"), "{}", extracted.text);
    }
}

#[test]
fn all_text_keeps_the_template_but_never_scripts_or_styles() {
    let all = page_text(page(0).as_bytes(), None, Extract::All).unwrap();
    assert_eq!(all.extracted, Extract::All);
    assert!(all.text.contains(HEADLINES[0]));
    assert!(all.text.contains(ARTICLE[3]));
    assert!(!all.text.contains("views") && !all.text.contains("color"));
    assert!(!all.text.contains("茶农采茶"), "the <title> is in <head>");
}

#[test]
fn a_page_without_an_article_falls_back_to_visible_text() {
    let html = "<html><body><a href=\"/\">首页</a><p>短</p></body></html>";
    let page = page_text(html.as_bytes(), None, Extract::Main).unwrap();
    assert_eq!(page.extracted, Extract::All);
    assert_eq!(page.text, "首页\n短");
}

#[test]
fn gbk_and_gb18030_pages_decode_by_header_meta_or_guess() {
    let html = page(1);
    let (gbk, _, _) = encoding_rs::GBK.encode(&html);
    let by_header = page_text(&gbk, Some("text/html; charset=gbk"), Extract::Main).unwrap();
    assert_eq!(by_header.charset_source, CharsetSource::ContentType);
    let guessed = page_text(&gbk, None, Extract::Main).unwrap();
    assert_eq!(guessed.charset_source, CharsetSource::Guess);
    let utf8 = page_text(html.as_bytes(), None, Extract::Main).unwrap();
    assert_eq!(by_header.text, utf8.text);
    assert_eq!(guessed.text, utf8.text);
    assert!(!guessed.lossy);
}

#[test]
fn binary_data_labelled_html_is_refused() {
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
    assert_eq!(
        page_text(png, Some("text/html"), Extract::Main),
        Err(HtmlError::Binary { offset: 8 })
    );
}

#[test]
fn hostile_pages_cost_bounded_work() {
    // Deep nesting: DOM walks are quadratic in depth (minutes at this
    // depth); it is read linearly instead, in well under a second.
    let deep = format!("{}深{}", "<div>".repeat(100_000), "</div>".repeat(10));
    for extract in [Extract::Main, Extract::All] {
        let started = std::time::Instant::now();
        let page = page_text(deep.as_bytes(), None, extract).unwrap();
        assert_eq!(page.text, "深");
        assert_eq!(page.extracted, Extract::All);
        assert!(started.elapsed().as_secs() < 5, "{:?}", started.elapsed());
    }
    // Truncated markup.
    let cut = page(0).into_bytes();
    assert!(page_text(&cut[..700], None, Extract::Main).is_ok());
    // Past the size limit only the start is read.
    let mut huge = page(0).into_bytes();
    huge.resize(MAX_HTML_BYTES + 10, b' ');
    let read = page_text(&huge, None, Extract::Main).unwrap();
    assert!(read.truncated);
    assert!(read.text.contains(ARTICLE[0]));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn any_bytes_give_text_or_an_error_never_a_panic(
        bytes in proptest::collection::vec(any::<u8>(), 0..2000),
        header in proptest::option::of("[ -~]{0,40}"),
    ) {
        let _ = page_text(&bytes, header.as_deref(), Extract::Main);
    }

    #[test]
    fn any_markup_soup_never_panics(parts in proptest::collection::vec(
        prop_oneof![
            Just("<div>"), Just("</div>"), Just("<p>"), Just("</p>"), Just("<script>"),
            Just("</script>"), Just("<a href='x'>"), Just("</a>"), Just("<table><tr><td>"),
            Just("中文句子。"), Just("word "), Just("<!--"), Just("-->"), Just("<meta charset=gbk>"),
        ],
        0..200,
    )) {
        let html: String = parts.concat();
        let _ = page_text(html.as_bytes(), None, Extract::Main);
        let _ = page_text(html.as_bytes(), None, Extract::All);
    }
}
