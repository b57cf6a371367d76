#include "detailspanel.h"

#include "eventtext.h"
#include "linkpainter.h"
#include "linktext.h"

namespace syncline::ui {

DetailsPanel::DetailsPanel(QWidget *parent) : QTextBrowser(parent)
{
    setOpenLinks(false);
    setOpenExternalLinks(false);
    setHtml(eventDetailsHtml(TimelineScene(std::make_shared<Timeline>()), {}));
    connect(this, &QTextBrowser::anchorClicked, this, [this](const QUrl &url) {
        // "event:<model>:<index>", "link:<index>:<from|to>"
        const QStringList parts = url.toString().split(QLatin1Char(':'));
        if (parts.size() == 3 && parts[0] == QLatin1String("event"))
            emit eventActivated({parts[1].toInt(), parts[2].toInt()});
        else if (parts.size() == 3 && parts[0] == QLatin1String("link"))
            activateLink(parts[1].toULongLong(), parts[2] == QLatin1String("to"));
    });
}

void DetailsPanel::showEvent(const TimelineScene *scene, const EventRef &ref,
                             const std::optional<CollectiveSpread> &spread)
{
    m_scene = scene;
    if (!scene) {
        clear();
        return;
    }
    // A collective instance: its spread first (who made the others wait), then the event.
    QString html = ref.valid() && spread ? spreadHtml(*scene, *spread) : QString();
    html += eventDetailsHtml(*scene, ref);
    if (ref.valid())
        html += linkDetailsHtml(*scene, ref);
    setHtml(html);
}

void DetailsPanel::activateLink(size_t k, bool toEnd)
{
    if (!m_scene || k >= m_scene->linkIndex().size())
        return;
    const MessageLink l = m_scene->linkIndex().link(k);
    const uint32_t w = toEnd ? l.toWorker : l.fromWorker;
    const uint32_t t = toEnd ? uint32_t(l.toTrack) : l.fromTrack;
    const int64_t local = toEnd ? l.toLocal : l.fromLocal;
    const int model = m_scene->modelsOf(int(w)).first + int(t);
    const EventRef ref = LinkPainter::eventAt(*m_scene, model, local);
    if (ref.valid())
        emit eventActivated(ref);
    else
        emit pointActivated(model, m_scene->timeline().toGlobal(w, local, m_scene->clockMode()));
}

} // namespace syncline::ui
